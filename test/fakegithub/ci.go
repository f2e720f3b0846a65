package fakegithub

import "net/http"

// suite is the head's one check suite (the CI app's) when it has check
// runs, summarised as GitHub does: completed once every run is, and then
// the worst conclusion ("" while not completed). REST's listing and the
// GraphQL query answer it alike.
func suite(runs []CheckRun) (status, conclusion string, ok bool) {
	if len(runs) == 0 {
		return "", "", false
	}
	status, conclusion = "completed", "success"
	for _, c := range runs {
		if c.Status != "completed" {
			status = c.Status
		} else if c.Conclusion != "success" && c.Conclusion != "neutral" && c.Conclusion != "skipped" {
			conclusion = c.Conclusion
		}
	}
	if status != "completed" {
		conclusion = ""
	}
	return status, conclusion, true
}

// checkSuites answers the head's suite, if any.
func (s *Server) checkSuites(w http.ResponseWriter, r *http.Request, rp *Repo) {
	runs := rp.checks[r.PathValue("ref")]
	suites := []any{}
	if status, conclusion, ok := suite(runs); ok {
		suite := map[string]any{"id": 1, "head_sha": r.PathValue("ref"), "status": status, "latest_check_runs_count": len(runs),
			"app": map[string]any{"id": 15368, "slug": "github-actions", "name": "GitHub Actions"}}
		if conclusion != "" {
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
		out = append(out, statusJSON(rp, r.PathValue("ref"), int64(i+1), st))
	}
	writeJSON(w, 200, out)
}
