// Package edit applies a model's SEARCH/REPLACE blocks to files. It forgives
// formatting drift (trailing blanks, CRLF, indentation and its unit, blank
// edge lines, blank lines inside SEARCH, retyped alignment) but never
// guesses: the first tier of the ladder that matches must find exactly one
// place, a block that reads two ways must fit the file only one way, and
// every line outside the edit keeps its bytes, its line ending included.
package edit

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/warden-bot/warden/outcome"
)

// Block is one SEARCH/REPLACE edit. An empty Search creates the file.
type Block struct {
	Index   int // 1-based position in the reply
	Path    string
	Search  string
	Replace string
	// Alts lists every reading of the block, the first being Search and
	// Replace, when a content line looks like the ======= divider (a
	// Markdown setext underline, a docstring rule). Apply uses a reading
	// only if it is the only one whose SEARCH fits the file.
	Alts []Split
}

// Split is one reading of a block: where its divider would be.
type Split struct {
	Divider int // 1-based line of the block (the SEARCH marker is line 0)
	Search  string
	Replace string
}

var (
	searchRE  = regexp.MustCompile(`^\s*<{5,9} ?SEARCH\s*$`)
	dividerRE = regexp.MustCompile(`^\s*={5,9}\s*$`)
	replaceRE = regexp.MustCompile(`^\s*>{5,9} ?REPLACE\s*$`)
	fenceRE   = regexp.MustCompile("^\\s*(```|~~~)")
	hunkRE    = regexp.MustCompile(`^@@ -\d+(,\d+)? \+\d+(,\d+)? @@`)
)

// ParseError is a malformed reply; its message is feedback for the model.
func parseError(n int, msg string) error {
	return &outcome.Error{Class: outcome.ContractFailure, Stage: "Implement", Msg: fmt.Sprintf("block %d: %s", n, msg)}
}

// Parse finds the SEARCH/REPLACE blocks in a reply, forgiving fences, prose
// between blocks, decorated path lines and CRLF. Unified diffs are accepted
// too: each hunk becomes a block (see parseDiff).
func Parse(reply string) ([]Block, error) {
	lines := strings.Split(strings.ReplaceAll(reply, "\r\n", "\n"), "\n")
	var blocks []Block
	for i := 0; i < len(lines); i++ {
		if diffHeader(lines, i) {
			hunks, end, err := parseDiff(lines, i, len(blocks)+1)
			if err != nil {
				return nil, err
			}
			blocks, i = append(blocks, hunks...), end
			continue
		}
		if !searchRE.MatchString(lines[i]) {
			continue
		}
		n := len(blocks) + 1
		path := pathBefore(lines, i)
		if path == "" {
			return nil, parseError(n, "no file path on the line before <<<<<<< SEARCH")
		}
		var divs []int
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if dividerRE.MatchString(lines[j]) {
				divs = append(divs, j)
			} else if len(divs) > 0 && replaceRE.MatchString(lines[j]) {
				end = j
				break
			} else if searchRE.MatchString(lines[j]) {
				break
			}
		}
		switch {
		case len(divs) == 0:
			return nil, parseError(n, "missing ======= divider")
		case end < 0:
			return nil, parseError(n, "missing >>>>>>> REPLACE")
		}
		b := Block{Index: n, Path: path, Search: join(lines[i+1 : divs[0]]), Replace: join(lines[divs[0]+1 : end])}
		for _, d := range divs {
			if len(divs) == 1 {
				break
			}
			b.Alts = append(b.Alts, Split{Divider: d - i, Search: join(lines[i+1 : d]), Replace: join(lines[d+1 : end])})
		}
		blocks = append(blocks, b)
		i = end
	}
	return blocks, nil
}

func join(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// pathBefore is the nearest non-empty, non-fence line above a SEARCH marker,
// stripped of markdown decoration.
func pathBefore(lines []string, i int) string {
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		l := strings.TrimSpace(lines[j])
		if l == "" || fenceRE.MatchString(l) {
			continue
		}
		l = strings.TrimPrefix(l, "File:")
		l = strings.TrimPrefix(l, "file:")
		l = strings.Trim(strings.TrimSpace(l), "`*#: ")
		if strings.ContainsAny(l, " \t") || replaceRE.MatchString(lines[j]) {
			return ""
		}
		return l
	}
	return ""
}

// diffHeader: a "--- old" line followed by "+++ new" starts a unified diff.
func diffHeader(lines []string, i int) bool {
	return strings.HasPrefix(lines[i], "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ")
}

// parseDiff turns one file's unified diff into blocks, one per hunk, in
// order: context and "-" lines are the SEARCH, context and "+" lines the
// REPLACE. The @@ line numbers are ignored — models get them wrong — so a
// hunk is placed by the same ladder as a block, and must match one place.
// "--- /dev/null" creates a file. It returns the last line it consumed.
func parseDiff(lines []string, i, n int) ([]Block, int, error) {
	oldPath, path := diffPath(lines[i], "a/"), diffPath(lines[i+1], "b/")
	switch {
	case path == "/dev/null":
		return nil, 0, parseError(n, "the diff deletes "+oldPath+"; deleting files is not supported")
	case path == "":
		return nil, 0, parseError(n, "no file path on the +++ line")
	case i+2 >= len(lines) || !hunkRE.MatchString(lines[i+2]):
		return nil, 0, parseError(n, "a unified diff needs an @@ hunk header after the +++ line")
	}
	var blocks []Block
	j := i + 2
	for j < len(lines) && hunkRE.MatchString(lines[j]) {
		search, replace, next := hunkBody(lines, j+1)
		if oldPath == "/dev/null" {
			search = nil
		}
		blocks = append(blocks, Block{Index: n + len(blocks), Path: path, Search: join(search), Replace: join(replace)})
		j = next
	}
	return blocks, j - 1, nil
}

// diffPath reads the path of a ---/+++ line: no timestamp, no a/ or b/.
func diffPath(line, prefix string) string {
	p, _, _ := strings.Cut(line[4:], "\t")
	p = strings.TrimSpace(p)
	if p == "/dev/null" {
		return p
	}
	return strings.TrimPrefix(p, prefix)
}

// hunkBody reads hunk lines from j up to the next hunk, file header or
// anything that is not a diff line. An empty line counts as blank context
// (editors strip the space) unless it ends the hunk.
func hunkBody(lines []string, j int) (search, replace []string, next int) {
	for ; j < len(lines); j++ {
		l := lines[j]
		// "-- x" removed then "++ y" added reads like a header: only an @@ after it makes one.
		if hunkRE.MatchString(l) || diffHeader(lines, j) && j+2 < len(lines) && hunkRE.MatchString(lines[j+2]) {
			return search, replace, j
		}
		if l == "" {
			l = " "
		}
		switch l[0] {
		case ' ':
			search, replace = append(search, l[1:]), append(replace, l[1:])
		case '-':
			search = append(search, l[1:])
		case '+':
			replace = append(replace, l[1:])
		case '\\':
		default:
			return trimEmptyTail(lines, j, search, replace)
		}
	}
	return trimEmptyTail(lines, j, search, replace)
}

// trimEmptyTail gives back the bare empty lines that ended a hunk: they were
// the gap before prose, not context.
func trimEmptyTail(lines []string, j int, search, replace []string) ([]string, []string, int) {
	for j > 0 && lines[j-1] == "" && len(search) > 0 && len(replace) > 0 {
		search, replace, j = search[:len(search)-1], replace[:len(replace)-1], j-1
	}
	return search, replace, j
}
