package fakegithub

import (
	"bytes"
	"net/http"
	"os/exec"
	"strings"
	"time"
)

// headQuery answers Warden's GraphQL read of a PR's base configuration and
// head CI (lifecycle headread.go) from the state the REST listings serve,
// in GitHub's shape: enums in capitals, a Bot's login without "[bot]",
// status null when the commit has none, a missing object null, check runs
// under their suite, first 100 of each connection with pageInfo.
func (s *Server) headQuery(w http.ResponseWriter, vars map[string]any) {
	owner, _ := vars["owner"].(string)
	name, _ := vars["name"].(string)
	rp := s.repos[owner+"/"+name]
	if rp == nil {
		writeJSON(w, 200, gqlNoRepo(owner, name))
		return
	}
	expr, _ := vars["config"].(string)
	sha, _ := vars["head"].(string)
	repo := map[string]any{"config": gitObject(rp, expr), "head": nil}
	if kind, _ := catFile(rp, "-t", sha); kind == "commit" {
		repo["head"] = map[string]any{"checkSuites": gqlSuites(rp.checks[sha]), "status": gqlStatus(rp.statuses[sha])}
	}
	writeJSON(w, 200, map[string]any{"data": map[string]any{"repository": repo}})
}

// gitObject is object(expression:) on the bare repository: null when
// nothing is there, a blob's text (null when binary), else its type.
func gitObject(rp *Repo, expr string) any {
	kind, err := catFile(rp, "-t", expr)
	if err != nil {
		return nil
	}
	if kind != "blob" {
		return map[string]any{"__typename": strings.ToUpper(kind[:1]) + kind[1:]}
	}
	text, err := catFile(rp, "-p", expr)
	if err != nil {
		return nil
	}
	o := map[string]any{"__typename": "Blob", "text": text, "isTruncated": false}
	if strings.ContainsRune(text, 0) {
		o["text"] = nil
	}
	return o
}

func catFile(rp *Repo, flag, obj string) (string, error) {
	out, err := exec.Command("git", "--git-dir="+strings.TrimPrefix(rp.CloneURL, "file://"), "cat-file", flag, obj).Output()
	if flag == "-t" {
		out = bytes.TrimSpace(out)
	}
	return string(out), err
}

const gqlFirst = 100

func gqlSuites(runs []CheckRun) map[string]any {
	nodes := []any{}
	if status, conclusion, ok := suite(runs); ok {
		list := []any{}
		for _, r := range runs[:min(len(runs), gqlFirst)] {
			list = append(list, map[string]any{"name": r.Name, "status": strings.ToUpper(r.Status), "conclusion": gqlEnum(r.Conclusion)})
		}
		nodes = append(nodes, map[string]any{"status": strings.ToUpper(status), "conclusion": gqlEnum(conclusion),
			"createdAt": time.Now().UTC().Format(time.RFC3339), "app": map[string]any{"slug": "github-actions", "name": "GitHub Actions"},
			"checkRuns": map[string]any{"pageInfo": map[string]any{"hasNextPage": len(runs) > gqlFirst}, "nodes": list}})
	}
	return map[string]any{"pageInfo": map[string]any{"hasNextPage": false}, "nodes": nodes}
}

func gqlStatus(all []Status) any {
	if len(all) == 0 {
		return nil
	}
	contexts := []any{}
	for _, st := range latestStatuses(all) {
		contexts = append(contexts, map[string]any{"context": st.Context, "state": strings.ToUpper(st.State),
			"description": nullable(st.Description), "creator": gqlActor(st.Creator)})
	}
	return map[string]any{"contexts": contexts}
}
