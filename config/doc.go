package config

import (
	"fmt"
	"strings"
)

// MarkdownTable renders the configuration reference for the README from the
// struct tags; a test keeps the README in sync with it.
func MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| variable | flag | default | meaning |\n|---|---|---|---|\n")
	for _, f := range fields(&Config{}) {
		def := f.def
		if def == "" {
			def = "none"
		}
		fmt.Fprintf(&b, "| `%s` | `--%s` | `%s` | %s |\n", f.env, f.flag, def, f.help)
	}
	return b.String()
}
