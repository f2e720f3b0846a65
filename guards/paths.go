package guards

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"unicode"
)

// lookalikes are characters that render like '.', '/' or '\' and could
// smuggle a traversal past a human reviewer or a naive check.
var lookalikes = "\u2024\u2025\u2026\uFE52\uFF0E\u2215\u2044\uFF0F\u29F8\u2216\uFE68\uFF3C\u00B7"

// CheckPath vets a model-provided path lexically and returns it cleaned.
func CheckPath(p string) (string, error) {
	bad := func(why string) (string, error) {
		return "", &Violation{Rule: "unsafe_path", Path: fmt.Sprintf("%q", p), Detail: why}
	}
	switch {
	case p == "":
		return bad("empty path")
	case strings.ContainsAny(p, "\x00"):
		return bad("NUL byte")
	case strings.Contains(p, `\`):
		return bad("backslashes are not path separators here")
	case strings.HasPrefix(p, "/") || (len(p) > 1 && p[1] == ':'):
		return bad("absolute path")
	case strings.ContainsAny(p, lookalikes):
		return bad("look-alike of '.' or '/'")
	}
	for _, r := range p {
		if !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r) {
			return bad("non-printable character")
		}
	}
	clean := path.Clean(p)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return bad("escapes the repository")
	}
	for _, part := range strings.Split(clean, "/") {
		if strings.EqualFold(part, ".git") || strings.EqualFold(strings.TrimRight(part, ". "), ".git") {
			return bad("inside .git")
		}
		if strings.HasSuffix(part, ".") || strings.HasSuffix(part, " ") || strings.HasPrefix(part, " ") {
			return bad("a name ending in a dot or space")
		}
	}
	return clean, nil
}

// Linker is the file-system view ResolveInside needs.
type Linker interface {
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
}

// ResolveInside checks p and follows every symlink along it (in root), refusing
// any that leads outside root. It returns the absolute path to use.
func ResolveInside(root, p string, fsys Linker) (string, error) {
	clean, err := CheckPath(p)
	if err != nil {
		return "", err
	}
	root = filepath.Clean(root)
	cur := root
	parts := strings.Split(clean, "/")
	for hops := 0; len(parts) > 0; {
		next := filepath.Join(cur, parts[0])
		parts = parts[1:]
		fi, err := fsys.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			cur = next // missing files are fine: they are about to be created
			continue
		}
		if hops++; hops > 40 {
			return "", &Violation{Rule: "unsafe_path", Path: p, Detail: "too many symbolic links"}
		}
		target, err := fsys.Readlink(next)
		if err != nil {
			return "", &Violation{Rule: "unsafe_path", Path: p, Detail: "unreadable symbolic link"}
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cur, target)
		}
		target = filepath.Clean(target)
		if !inside(root, target) {
			return "", &Violation{Rule: "unsafe_path", Path: p, Detail: "a symbolic link leads outside the repository"}
		}
		rel, _ := filepath.Rel(root, target)
		cur = root
		if rel != "." {
			parts = append(strings.Split(filepath.ToSlash(rel), "/"), parts...)
		}
	}
	if !inside(root, cur) {
		return "", &Violation{Rule: "unsafe_path", Path: p, Detail: "escapes the repository"}
	}
	return cur, nil
}

func inside(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}
