package modes

import "go.yaml.in/yaml/v3"

// MergeMethods are the values merge_method takes (CONTRACT §12).
var MergeMethods = []string{"squash", "merge", "rebase"}

// checkMergeMethod refuses an unknown merge_method: a typo must not fall
// back silently to another method.
func checkMergeMethod(m string, root *yaml.Node) error {
	if m == "" || contains(MergeMethods, m) {
		return nil
	}
	return &ConfigError{Key: "merge_method", Line: lineOf(root, "merge_method"), Msg: "must be squash, merge or rebase (or empty: the first the repository allows)"}
}
