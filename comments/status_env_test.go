package comments

import (
	"strings"
	"testing"
)

// The status comment says which commands run and where they came from.
func TestRenderStatusShowsCommands(t *testing.T) {
	body := RenderStatus(Status{State: "running", Environment: "test `npm test` (inferred from `package.json`)"})
	if !strings.Contains(body, "Commands: test `npm test` (inferred from `package.json`)") {
		t.Fatal(body)
	}
	if strings.Contains(RenderStatus(Status{State: "running"}), "Commands:") {
		t.Fatal("a Commands line without commands")
	}
}
