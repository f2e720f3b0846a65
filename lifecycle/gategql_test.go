package lifecycle

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// gateGQL is what gateGH's GraphQL answers beside the REST listings it
// converts: a config object standing in for the blob (a cut or binary
// text), an error, and the head queries received.
type gateGQL struct {
	config  any    // nil: from rules.config
	errors  string // answered instead, when set
	queries int
}

// headQuery answers the head query (headread.go) from the same suites,
// runs and statuses the REST listings serve, in GitHub's GraphQL shape:
// enums in capitals, each run under its suite, a Bot's login without
// "[bot]", status null with no status, a missing file null, the first 100
// of each connection with pageInfo.
func (g *gateGH) headQuery(w http.ResponseWriter, r *http.Request) {
	g.gql.queries++
	w.Header().Set("Content-Type", "application/json")
	if g.gql.errors != "" {
		_, _ = w.Write([]byte(g.gql.errors))
		return
	}
	config := g.gql.config
	if config == nil && g.rules.config != "" {
		config = map[string]any{"__typename": "Blob", "text": g.rules.config, "isTruncated": false}
	}
	head := map[string]any{"checkSuites": g.gqlSuites(), "status": g.gqlStatus()}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"repository": map[string]any{"config": config, "head": head}}})
}

func (g *gateGH) gqlSuites() map[string]any {
	type suite struct {
		node map[string]any
		runs []any
	}
	var suites []*suite
	byID := map[float64]*suite{}
	for _, s := range g.suites {
		s := s.(map[string]any)
		created, _ := s["created_at"].(string)
		app := s["app"].(map[string]any)
		x := &suite{node: map[string]any{"status": upper(s["status"]), "conclusion": upper(s["conclusion"]), "createdAt": created,
			"app": map[string]any{"slug": str(app["slug"]), "name": str(app["name"])}}}
		suites, byID[num(s["id"])] = append(suites, x), x
	}
	orphans := map[string]*suite{} // runs of no listed suite: one per App, as GitHub opens them
	for _, r := range g.runs {
		r := r.(map[string]any)
		run := map[string]any{"name": r["name"], "status": upper(r["status"]), "conclusion": upper(r["conclusion"])}
		if x := byID[num(r["check_suite"].(map[string]any)["id"])]; x != nil {
			x.runs = append(x.runs, run)
			continue
		}
		app := r["app"].(map[string]any)
		x := orphans[str(app["slug"])]
		if x == nil {
			x = &suite{node: map[string]any{"status": "COMPLETED", "conclusion": "SUCCESS", "createdAt": time.Now().UTC().Format(time.RFC3339),
				"app": map[string]any{"slug": str(app["slug"]), "name": str(app["name"])}}}
			orphans[str(app["slug"])] = x
			suites = append(suites, x)
		}
		x.runs = append(x.runs, run)
		if run["status"] != "COMPLETED" {
			x.node["status"], x.node["conclusion"] = run["status"], nil
		} else if c := run["conclusion"]; c != "SUCCESS" && c != "NEUTRAL" && c != "SKIPPED" && x.node["conclusion"] != nil {
			x.node["conclusion"] = c
		}
	}
	nodes := []any{}
	for _, x := range suites {
		x.node["checkRuns"] = map[string]any{"pageInfo": map[string]any{"hasNextPage": len(x.runs) > 100}, "nodes": x.runs[:min(len(x.runs), 100)]}
		nodes = append(nodes, x.node)
	}
	return map[string]any{"pageInfo": map[string]any{"hasNextPage": len(nodes) > 100}, "nodes": nodes[:min(len(nodes), 100)]}
}

// gqlStatus is the newest status of each context, or null.
func (g *gateGH) gqlStatus() any {
	if len(g.statuses) == 0 {
		return nil
	}
	seen := map[string]bool{}
	contexts := []any{}
	for _, s := range g.statuses {
		s := s.(map[string]any)
		if seen[str(s["context"])] {
			continue
		}
		seen[str(s["context"])] = true
		c := s["creator"].(map[string]any)
		typ, login := "User", str(c["login"])
		if bot, ok := strings.CutSuffix(login, "[bot]"); ok || c["type"] == "Bot" {
			typ, login = "Bot", bot
		}
		contexts = append(contexts, map[string]any{"context": s["context"], "state": upper(s["state"]), "description": s["description"],
			"creator": map[string]any{"__typename": typ, "login": login}})
	}
	return map[string]any{"contexts": contexts}
}

func upper(v any) any {
	if s, ok := v.(string); ok && s != "" {
		return strings.ToUpper(s)
	}
	return nil
}

func str(v any) string { s, _ := v.(string); return s }

func num(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case float64:
		return n
	}
	return -1
}
