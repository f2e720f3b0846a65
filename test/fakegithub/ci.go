package fakegithub

import "net/http"

// checkSuites answers one suite (the CI app's) per head that has check
// runs, summarising them as GitHub does: completed once every run is, and
// then the worst conclusion.
func (s *Server) checkSuites(w http.ResponseWriter, r *http.Request, rp *Repo) {
	runs := rp.checks[r.PathValue("ref")]
	suites := []any{}
	if len(runs) > 0 {
		status, conclusion := "completed", "success"
		for _, c := range runs {
			if c.Status != "completed" {
				status = c.Status
			} else if c.Conclusion != "success" && c.Conclusion != "neutral" && c.Conclusion != "skipped" {
				conclusion = c.Conclusion
			}
		}
		suite := map[string]any{"id": 1, "head_sha": r.PathValue("ref"), "status": status, "latest_check_runs_count": len(runs),
			"app": map[string]any{"id": 15368, "slug": "github-actions", "name": "GitHub Actions"}}
		if status == "completed" {
			suite["conclusion"] = conclusion
		}
		suites = append(suites, suite)
	}
	writeJSON(w, 200, map[string]any{"total_count": len(suites), "check_suites": suites})
}

// listStatuses lists a ref's commit statuses newest first, with creators.
func (s *Server) listStatuses(w http.ResponseWriter, r *http.Request, rp *Repo) {
	all := rp.statuses[r.PathValue("ref")]
	out := []any{}
	for i := len(all) - 1; i >= 0; i-- {
		st := all[i]
		out = append(out, map[string]any{"id": i + 1, "state": st.State, "context": st.Context, "description": st.Description, "creator": user(st.Creator)})
	}
	writeJSON(w, 200, out)
}
