package edit

import (
	"strings"
	"testing"
)

// A model that pads some SEARCH lines with trailing blanks the file lacks,
// and copies another line with the trailing blank the file really has:
// the line it changes keeps the file's own trailing blank (trailing
// whitespace is kept per line), while its padded lines are written without.
// From the corpus: json/e2e/examples/endpoints.json, trailing_spaces.
func TestTrailingBlankTheFileHasIsKept(t *testing.T) {
	src := "{\n  \"uid\": \"a\",\n  \"addr_type\": \"ipv4\", \n  \"port\": 1\n}\n"
	search := "  \"uid\": \"a\",  \n  \"addr_type\": \"ipv4\", \n  \"port\": 1\t\n"
	replace := "  \"uid\": \"a\",\n  \"addr_typeEdited\": \"ipv4\", \n  \"port\": 1\n"
	files := memFS{"e.json": src}
	res, err := apply(t, files, block("e.json", search, replace))
	want := strings.Replace(src, "addr_type\"", "addr_typeEdited\"", 1)
	if err != nil || files["e.json"] != want {
		t.Fatalf("err %v, blocks %+v\ngot  %q\nwant %q", err, res.Blocks, files["e.json"], want)
	}
}

// A file that indents one level with four spaces and the next with a tab
// (the same column at tab width 4), edited by a model that turned every tab
// into four spaces: a new line takes the indentation of the SEARCH lines
// around it, not of the first SEARCH line as wide, and when those two
// neighbours disagree the block is refused.
// From the corpus: shell/socat/examples/ftp.sh, tabs_to_spaces.
func TestMixedIndentNewLineFollowsItsNeighbours(t *testing.T) {
	src := "while :; do\n    case \"$1\" in\n    -socks) shift;\n\tcase \"$1\" in\n\t*) m=\"$1\" ;;\n\tesac ;;\n    -v) v=1 ;;\n    esac\ndone\n"
	search := "    case \"$1\" in\n    -socks) shift;\n    case \"$1\" in\n    *) m=\"$1\" ;;\n    esac ;;\n"
	files := memFS{"ftp.sh": src}
	replace := strings.Replace(search, "    esac ;;\n", "    x=1\n    esac ;;\n", 1)
	res, err := apply(t, files, block("ftp.sh", search, replace))
	want := strings.Replace(src, "\tesac ;;\n", "\tx=1\n\tesac ;;\n", 1)
	if err != nil || files["ftp.sh"] != want {
		t.Fatalf("err %v, blocks %+v\ngot  %q\nwant %q", err, res.Blocks, files["ftp.sh"], want)
	}
	// Between "-socks) shift;" (four spaces) and "case" (a tab), four
	// columns name no single indentation: refused.
	files = memFS{"ftp.sh": src}
	replace = strings.Replace(search, "shift;\n", "shift;\n    x=1\n", 1)
	if _, err := apply(t, files, block("ftp.sh", search, replace)); err == nil || files["ftp.sh"] != src {
		t.Fatalf("new line between lines the file indents differently: err %v, file %q", err, files["ftp.sh"])
	}
}
