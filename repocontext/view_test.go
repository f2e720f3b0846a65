package repocontext

import (
	"fmt"
	"strings"
	"testing"
)

// In a repository of large files every outline is long; the best files
// keep a full one, and the files further down a short one, so that the
// view still shows some forty files within the budget, not a dozen.
func TestViewShowsManyLargeFiles(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 50; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%02d\n\n// recorder of file input actions\n", i)
		for j := 0; j < 40; j++ {
			fmt.Fprintf(&b, "\nfunc HandleRecordedFileInputAction%02dWithAVeryLongName(ctx context.Context, target Element, options RecorderOptions) error {\n\treturn nil\n}\n", j)
		}
		files[fmt.Sprintf("pkg/p%02d/recorder.go", i)] = b.String()
	}
	dir, x := repoFrom(t, files)
	q := NewQuery("recorder: file input action is recorded wrong", "The recorder records a file input action as a click.")
	v := Build(x, q, Options{Dir: dir})
	shown, full := 0, 0
	for _, f := range v.Files {
		if f.Outline || f.Content {
			shown++
		}
	}
	for _, sec := range strings.Split(v.Text, "\n### ")[1:] {
		if strings.Count(sec, "\n  ") >= 20 {
			full++
		}
	}
	if v.Tokens > DefaultBudget || shown < 35 {
		t.Errorf("%d files shown in %d tokens, want at least 35 within %d", shown, v.Tokens, DefaultBudget)
	}
	if full < outlinesInFull-3 {
		t.Errorf("%d full outlines, want the best files' outlines full", full)
	}
}
