package fakegithub

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// know records labels as existing in the repository: GitHub creates a
// label the first time REST adds it by name, and keeps it when it leaves
// every issue.
func (rp *Repo) know(labels ...string) {
	if rp.labels == nil {
		rp.labels = map[string]bool{}
	}
	for _, l := range labels {
		rp.labels[l] = true
	}
}

// labelNodeID is a label's global id; issueNodeID an issue's.
func labelNodeID(rp *Repo, name string) string {
	return "LA_kw" + base64.RawURLEncoding.EncodeToString([]byte(rp.Owner+"/"+rp.Name+"\x00"+name))
}

func issueNodeID(is *Issue) string { return "I_kw" + strconv.FormatInt(is.ID, 10) }

func (s *Server) labelByNodeID(rp *Repo, id string) (string, bool) {
	for l := range rp.labels {
		if labelNodeID(rp, l) == id {
			return l, true
		}
	}
	return "", false
}

func (s *Server) issueByNodeID(id string) (*Repo, *Issue) {
	for _, rp := range s.repos {
		for _, is := range rp.issues {
			if issueNodeID(is) == id {
				return rp, is
			}
		}
	}
	return nil, nil
}

func labelNodes(rp *Repo, names []string) []any {
	out := []any{}
	for _, l := range names {
		out = append(out, map[string]any{"id": labelNodeID(rp, l), "name": l})
	}
	return out
}

// issueQuery answers Warden's GraphQL issue read (pipeline issueread.go)
// in GitHub's shape: state in capitals, a Bot's login without "[bot]",
// the repository's labels whose name contains the query, and an error
// with a null issue for a number that is not an issue.
func (s *Server) issueQuery(w http.ResponseWriter, vars map[string]any) {
	owner, _ := vars["owner"].(string)
	name, _ := vars["name"].(string)
	n, _ := vars["number"].(float64)
	query, _ := vars["prefix"].(string)
	about(w, "issue "+strconv.Itoa(int(n)))
	rp := s.repos[owner+"/"+name]
	if rp == nil {
		writeJSON(w, 200, gqlNoRepo(owner, name))
		return
	}
	var matching []string
	for l := range rp.labels {
		if strings.Contains(strings.ToLower(l), strings.ToLower(query)) {
			matching = append(matching, l)
		}
	}
	slices.Sort(matching)
	repo := map[string]any{"issue": nil, "labels": map[string]any{"nodes": labelNodes(rp, matching)}}
	is, ok := rp.issues[int(n)]
	if !ok {
		writeJSON(w, 200, gqlNotFound(map[string]any{"repository": repo}, "Could not resolve to an Issue with the number of "+strconv.Itoa(int(n))+".", "repository", "issue"))
		return
	}
	repo["issue"] = map[string]any{"id": issueNodeID(is), "title": is.Title, "body": is.Body, "state": strings.ToUpper(is.State),
		"author": gqlActor(is.Author), "comments": map[string]any{"totalCount": commentCount(rp, is.Number)},
		"labels": map[string]any{"pageInfo": map[string]any{"hasNextPage": false}, "nodes": labelNodes(rp, is.Labels)}}
	writeJSON(w, 200, map[string]any{"data": map[string]any{"repository": repo}})
}

// labelSwap answers the add-then-remove mutation document: its two fields
// run in order, each answering the issue's labels after it, and a field
// whose ids do not resolve is null with an error while the other still runs.
func (s *Server) labelSwap(w http.ResponseWriter, vars map[string]any) {
	data, errs := map[string]any{}, []any{}
	for _, f := range []struct {
		alias, input string
		add          bool
	}{{"add", "input", true}, {"remove", "remove", false}} {
		in, _ := vars[f.input].(map[string]any)
		id, _ := in["labelableId"].(string)
		rp, is := s.issueByNodeID(id)
		if is != nil {
			about(w, "labels of issue "+strconv.Itoa(is.Number))
		}
		if is == nil {
			data[f.alias] = nil
			errs = append(errs, gqlError("Could not resolve to a node with the global id of '"+id+"'", f.alias))
			continue
		}
		ids, _ := in["labelIds"].([]any)
		var names []string
		for _, x := range ids {
			l, ok := s.labelByNodeID(rp, x.(string))
			if !ok {
				names = nil
				errs = append(errs, gqlError("Could not resolve to a node with the global id of '"+x.(string)+"'", f.alias))
				break
			}
			names = append(names, l)
		}
		if names == nil {
			data[f.alias] = nil
			continue
		}
		for _, l := range names {
			if f.add && !slices.Contains(is.Labels, l) {
				is.Labels = append(is.Labels, l)
			}
			if !f.add {
				is.Labels = slices.DeleteFunc(is.Labels, func(x string) bool { return x == l })
			}
		}
		data[f.alias] = map[string]any{"labelable": map[string]any{"labels": map[string]any{"nodes": labelNodes(rp, is.Labels)}}}
	}
	answer := map[string]any{"data": data}
	if len(errs) > 0 {
		answer["errors"] = errs
	}
	writeJSON(w, 200, answer)
}

// CreateLabels gives the repository labels no issue carries, as one Warden
// has worked in before has its state labels.
func (s *Server) CreateLabels(repo string, names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].know(names...)
}
