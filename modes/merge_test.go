package modes

import (
	"errors"
	"testing"
)

// merge_method takes squash, merge or rebase; a typo is refused, naming the key.
func TestMergeMethod(t *testing.T) {
	c, err := Parse([]byte("merge_method: rebase\n"))
	if err != nil || c.MergeMethod != "rebase" {
		t.Fatalf("rebase: %+v, %v", c.MergeMethod, err)
	}
	if c, err := Parse(nil); err != nil || c.MergeMethod != "" {
		t.Fatalf("default: %q, %v", c.MergeMethod, err)
	}
	_, err = Parse([]byte("test: go test ./...\nmerge_method: fast-forward\n"))
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "merge_method" || ce.Line != 2 {
		t.Fatalf("typo: %v", err)
	}
}
