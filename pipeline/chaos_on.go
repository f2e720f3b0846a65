//go:build chaos

package pipeline

import (
	"os"
	"strings"
)

// chaos injects faults for the end-to-end tests; it exists only in
// binaries built with -tags chaos. WARDEN_CHAOS=panic:<Stage>[,…] panics
// at the start of each named stage.
func chaos(stage string) {
	for _, f := range strings.Split(os.Getenv("WARDEN_CHAOS"), ",") {
		if f == "panic:"+stage {
			panic("chaos: injected panic in " + stage)
		}
	}
}
