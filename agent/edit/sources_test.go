package edit

import (
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// source is one kind of real third-party file the corpus is cut from.
type source struct {
	lang     string
	roots    func() []string
	exts     []string
	n        int // files to draw
	minLines int
}

var sources = []source{
	{"go-std", func() []string { return goRoot() }, []string{".go"}, 12, 80},
	{"go", moduleDirs, []string{".go"}, 20, 80},
	{"python", pythonDirs, []string{".py"}, 14, 80},
	{"yaml", moduleDirs, []string{".yml", ".yaml"}, 10, 30},
	{"markdown", func() []string { return append(moduleDirs(), "/usr/share/doc") }, []string{".md"}, 12, 40},
	{"json", moduleDirs, []string{".json"}, 8, 30},
	{"shell", func() []string { return append(append(moduleDirs(), "/usr/share/doc"), goRoot()...) }, []string{".sh"}, 8, 40},
}

// dividerSource: extra files holding a line that looks like the =======
// divider (Markdown setext underlines, docstring and reST rules); they are
// rare, so any length up to 3,000 lines will do.
var dividerSource = source{"divider", func() []string {
	return append(append(append(moduleDirs(), "/usr/share/doc"), pythonDirs()...), goRoot()...)
}, []string{".md", ".py", ".rst"}, 10, 20}

func goRoot() []string {
	src, err := goSrc()
	if err != nil {
		return nil
	}
	return []string{src}
}

// moduleDirs are the third-party modules this repository builds with, as
// the module cache holds them: the same go.sum gives the same set.
func moduleDirs() []string {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Dir}}{{end}}{{end}}", "github.com/warden-bot/warden/...").Output()
	if err != nil {
		return nil
	}
	seen, dirs := map[string]bool{}, []string{}
	for _, d := range strings.Fields(string(out)) {
		if !seen[d] {
			seen[d], dirs = true, append(dirs, d)
		}
	}
	sort.Strings(dirs)
	return dirs
}

// pythonDirs is Debian's Python standard library, or else the standard
// library of whatever python3 is on the PATH.
func pythonDirs() []string {
	dirs, _ := filepath.Glob("/usr/lib/python3.*")
	if len(dirs) == 0 {
		out, err := exec.Command("python3", "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])").Output()
		if err == nil {
			dirs = strings.Fields(string(out))
		}
	}
	sort.Strings(dirs)
	return dirs
}

// loadFiles draws each source's files at random with the corpus seed.
func loadFiles(rng *rand.Rand) ([]srcFile, error) {
	var files []srcFile
	for _, s := range append(sources, dividerSource) {
		paths, picked := walk(s.roots(), s.exts), 0
		for _, i := range rng.Perm(len(paths)) {
			if picked == s.n {
				break
			}
			if f, ok := readSource(s, paths[i]); ok && (s.lang != "divider" || hasDivider(f.lines)) {
				files, picked = append(files, f), picked+1
			}
		}
		if picked < s.n && (s.lang != "divider" || picked < 4) {
			return nil, fmt.Errorf("edit corpus: only %d usable %s files under %v; the corpus needs %d", picked, s.lang, s.roots(), s.n)
		}
	}
	more, err := docstringFiles()
	if err != nil {
		return nil, err
	}
	files = append(files, more...)
	sort.Slice(files, func(a, b int) bool { return files[a].path < files[b].path })
	return files, nil
}

// docstringSource: Python files with a two-column step inside four-space
// code (docstring lists, aligned continuations), for docstring_step. Drawn
// with their own seed so the other sources' draws stay as they were.
var docstringSource = source{"docstring", pythonDirs, []string{".py"}, 8, 80}

func docstringFiles() ([]srcFile, error) {
	s, rng := docstringSource, rand.New(rand.NewSource(corpusSeed+30))
	var out []srcFile
	paths := walk(s.roots(), s.exts)
	for _, i := range rng.Perm(len(paths)) {
		if len(out) == s.n {
			break
		}
		if f, ok := readSource(s, paths[i]); ok && len(twoColumnSteps(f.lines)) > 0 {
			out = append(out, f)
		}
	}
	if len(out) < s.n {
		return nil, fmt.Errorf("edit corpus: only %d Python files with two-column steps under %v; the corpus needs %d", len(out), s.roots(), s.n)
	}
	return out, nil
}

func walk(roots, exts []string) []string {
	var paths []string
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			for _, e := range exts {
				if strings.HasSuffix(p, e) {
					paths = append(paths, p)
				}
			}
			return nil
		})
	}
	sort.Strings(paths)
	return paths
}

func readSource(s source, p string) (srcFile, bool) {
	data, err := os.ReadFile(p)
	str := string(data)
	if err != nil || !utf8.ValidString(str) || strings.Contains(str, "\r") || !strings.HasSuffix(str, "\n") {
		return srcFile{}, false
	}
	lines := strings.Split(strings.TrimSuffix(str, "\n"), "\n")
	if len(lines) < s.minLines || len(lines) > 1200 && (s.lang != "divider" || len(lines) > 3000) {
		return srcFile{}, false
	}
	return srcFile{path: s.lang + "/" + shortPath(p), lines: lines, lang: s.lang}, true
}

// shortPath keeps the last three elements: enough to recognise the file.
func shortPath(p string) string {
	parts := strings.Split(filepath.ToSlash(p), "/")
	return strings.Join(parts[max(len(parts)-3, 0):], "/")
}

func hasDivider(lines []string) bool {
	for _, l := range lines {
		if dividerRE.MatchString(l) {
			return true
		}
	}
	return false
}
