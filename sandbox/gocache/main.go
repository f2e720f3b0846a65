package gocache

import (
	"fmt"
	"io"
)

// Main is `bot gocacheprog SHARED PRIVATE`: the go command inside the
// sandbox runs the bot binary as its GOCACHEPROG, so the shared build cache
// stays read-only to repository commands and builds stay warm.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintln(stdout, "usage: bot gocacheprog SHARED_GOCACHE PRIVATE_DIR")
		return 0
	}
	if len(args) != 2 {
		fmt.Fprintln(stderr, "usage: bot gocacheprog SHARED_GOCACHE PRIVATE_DIR")
		return 2
	}
	if err := Serve(stdin, stdout, args[0], args[1]); err != nil {
		fmt.Fprintln(stderr, "gocacheprog:", err)
		return 1
	}
	return 0
}
