package guards

import (
	"strings"
	"testing"
)

func TestModeRules(t *testing.T) {
	cases := map[string]Change{
		"gitlink":      {Path: "vendor/x", Status: Added, NewMode: ModeGitlink},
		"executable":   {Path: "run.sh", Status: Modified, OldMode: "100644", NewMode: ModeExecutable},
		"git_metadata": {Path: "sub/.gitattributes", Status: Added, NewMode: "100644"},
	}
	cases["git_metadata "] = Change{Path: ".gitmodules", Status: Modified, OldMode: "100644", NewMode: "100644"}
	for rule, c := range cases {
		if err := CheckDiff([]Change{c}, Limits{}); err == nil || !strings.Contains(err.Error(), strings.TrimSpace(rule)) {
			t.Errorf("%s: %v", rule, err)
		}
	}
	ok := []Change{
		{Path: "run.sh", Status: Modified, OldMode: ModeExecutable, NewMode: ModeExecutable},
		{Path: "vendor/x", Status: Deleted, OldMode: ModeGitlink},
	}
	if err := CheckDiff(ok, Limits{}); err != nil {
		t.Errorf("an executable kept executable, a removed gitlink: %v", err)
	}
}
