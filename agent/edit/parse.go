// Package edit applies a model's SEARCH/REPLACE blocks to files. It forgives
// formatting drift (whitespace, CRLF, indentation, blank edges) but never
// guesses: every rung of the ladder must find exactly one place.
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
}

var (
	searchRE  = regexp.MustCompile(`^\s*<{5,9} ?SEARCH\s*$`)
	dividerRE = regexp.MustCompile(`^\s*={5,9}\s*$`)
	replaceRE = regexp.MustCompile(`^\s*>{5,9} ?REPLACE\s*$`)
	fenceRE   = regexp.MustCompile("^\\s*(```|~~~)")
)

// ParseError is a malformed reply; its message is feedback for the model.
func parseError(n int, msg string) error {
	return &outcome.Error{Class: outcome.ContractFailure, Stage: "Implement", Msg: fmt.Sprintf("block %d: %s", n, msg)}
}

// Parse finds the SEARCH/REPLACE blocks in a reply, forgiving fences, prose
// between blocks, decorated path lines and CRLF.
func Parse(reply string) ([]Block, error) {
	lines := strings.Split(strings.ReplaceAll(reply, "\r\n", "\n"), "\n")
	var blocks []Block
	for i := 0; i < len(lines); i++ {
		if !searchRE.MatchString(lines[i]) {
			continue
		}
		n := len(blocks) + 1
		path := pathBefore(lines, i)
		if path == "" {
			return nil, parseError(n, "no file path on the line before <<<<<<< SEARCH")
		}
		div, end := -1, -1
		for j := i + 1; j < len(lines); j++ {
			if div < 0 && dividerRE.MatchString(lines[j]) {
				div = j
			} else if div >= 0 && replaceRE.MatchString(lines[j]) {
				end = j
				break
			} else if searchRE.MatchString(lines[j]) {
				break
			}
		}
		switch {
		case div < 0:
			return nil, parseError(n, "missing ======= divider")
		case end < 0:
			return nil, parseError(n, "missing >>>>>>> REPLACE")
		}
		blocks = append(blocks, Block{Index: n, Path: path, Search: join(lines[i+1 : div]), Replace: join(lines[div+1 : end])})
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
