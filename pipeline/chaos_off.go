//go:build !chaos

package pipeline

// chaos is a no-op outside test binaries built with -tags chaos.
func chaos(stage, dir string) {}
