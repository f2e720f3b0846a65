package fakegithub

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

type treeEntry struct {
	Path, Mode, Type string
	SHA              *string
	Content          *string
}

// createTree builds the tree as GitHub does: base_tree's entries, each
// given entry added or replaced (by sha or content), a null sha deleting
// its path (and everything under it), written by git in a scratch index.
func (s *Server) createTree(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var in struct {
		BaseTree string      `json:"base_tree"`
		Tree     []treeEntry `json:"tree"`
	}
	if !decode(r, &in) {
		unprocessable(w, "Invalid request.", "trees#create-a-tree")
		return
	}
	dir, err := os.MkdirTemp("", "fakegithub-tree")
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	defer os.RemoveAll(dir)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(dir, "index")}
	if in.BaseTree != "" {
		if _, err := gitRun(rp, "", env, "read-tree", in.BaseTree); err != nil {
			unprocessable(w, "Invalid tree info", "trees#create-a-tree")
			return
		}
	}
	info, msg := s.indexInfo(rp, env, in.Tree)
	if msg != "" {
		unprocessable(w, msg, "trees#create-a-tree")
		return
	}
	if _, err := gitRun(rp, info, env, "update-index", "--index-info"); err != nil {
		unprocessable(w, "GitRPC::BadObjectState", "trees#create-a-tree")
		return
	}
	sha, err := gitRun(rp, "", env, "write-tree")
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	writeJSON(w, 201, map[string]any{"sha": sha, "url": s.base(r) + r.URL.Path + "/" + sha, "tree": s.treeListing(rp, sha), "truncated": false})
}

// indexInfo turns the entries into `update-index --index-info` lines, or
// GitHub's message for the first one it refuses.
func (s *Server) indexInfo(rp *Repo, env []string, entries []treeEntry) (string, string) {
	var b strings.Builder
	zero := strings.Repeat("0", 40)
	for _, e := range entries {
		if e.Path == "" || strings.HasPrefix(e.Path, "/") || strings.Contains(e.Path, "//") {
			return "", "tree.path contains a malformed path component"
		}
		if e.SHA == nil && e.Content == nil { // delete the path, or everything under it
			b.WriteString("0 " + zero + "\t" + e.Path + "\n")
			under, _ := gitRun(rp, "", env, "ls-files", "--", e.Path+"/")
			for _, p := range strings.Split(under, "\n") {
				if p != "" {
					b.WriteString("0 " + zero + "\t" + p + "\n")
				}
			}
			continue
		}
		want := map[string]string{"100644": "blob", "100755": "blob", "120000": "blob", "160000": "commit"}[e.Mode]
		if want == "" || e.Type != want {
			return "", "Must supply a valid tree.mode and tree.type" // 040000 entries are not modelled here
		}
		sha := ""
		if e.Content != nil {
			sha, _ = gitRun(rp, *e.Content, nil, "hash-object", "-w", "--stdin")
		} else {
			sha = *e.SHA
		}
		if want == "blob" {
			if t, _ := gitRun(rp, "", nil, "cat-file", "-t", sha); t != "blob" {
				return "", "GitRPC::BadObjectState"
			}
		}
		b.WriteString(e.Mode + " " + sha + "\t" + e.Path + "\n")
	}
	return b.String(), ""
}

// treeListing is the new tree's top level, as GitHub lists it.
func (s *Server) treeListing(rp *Repo, sha string) []any {
	out := []any{}
	ls, _ := gitRun(rp, "", nil, "ls-tree", sha)
	for _, l := range strings.Split(ls, "\n") {
		meta, path, ok := strings.Cut(l, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			continue
		}
		out = append(out, map[string]any{"path": path, "mode": f[0], "type": f[1], "sha": f[2]})
	}
	return out
}
