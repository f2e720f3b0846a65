package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/warden-bot/warden/sandbox/gocache"
	"github.com/warden-bot/warden/workspace"
)

// The go command inside the sandbox runs this binary as its GOCACHEPROG
// (`bot gocacheprog SHARED PRIVATE`): the shared build cache stays
// read-only to repository commands and builds stay warm.
func init() {
	if exe, err := os.Executable(); err == nil && !strings.HasSuffix(exe, ".test") {
		workspace.GoCacheProg = exe
	}
}

func gocacheprog(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "usage: bot gocacheprog SHARED_GOCACHE PRIVATE_DIR")
		return exitUsage
	}
	if err := gocache.Serve(stdin, stdout, args[0], args[1]); err != nil {
		fmt.Fprintln(stderr, "gocacheprog:", err)
		return exitFailure
	}
	return exitOK
}
