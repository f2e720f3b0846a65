package workspace

import (
	"context"
	"testing"

	"github.com/warden-bot/warden/sandbox"
)

// A reporter's file in the command's HOME comes back to Warden; a link
// there is not followed out of it.
func TestRunReadsTheReportBackFromHome(t *testing.T) {
	dir := t.TempDir()
	r := Run(context.Background(), Command{Tree: sandbox.Tree{Dir: dir}, Line: `printf '<testsuites/>' > "$HOME/r.xml"`, Report: "r.xml"})
	if r.Err != nil || string(r.Report) != "<testsuites/>" {
		t.Fatalf("report = %q, err = %v, output = %s", r.Report, r.Err, r.Output)
	}
	r = Run(context.Background(), Command{Tree: sandbox.Tree{Dir: dir}, Line: `ln -s /etc/hostname "$HOME/r.xml"`, Report: "r.xml"})
	if r.Report != nil {
		t.Fatalf("a link was followed: %q", r.Report)
	}
	if r := Run(context.Background(), Command{Tree: sandbox.Tree{Dir: dir}, Line: "true", Report: "../r.xml"}); r.Report != nil {
		t.Fatal("a report name left HOME")
	}
}
