package inspect

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/warden-bot/warden/environment/mirrors"
)

// Main is `bot inspect --repo PATH [--json]`. Exit codes as the binary's:
// 0, 1 failure, 2 usage.
func Main(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", ".", "the checkout to inspect")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	m := mirrors.Mirrors{PipIndex: getenv(mirrors.PipSetting), NPMRegistry: getenv(mirrors.NPMSetting), GoProxy: getenv(mirrors.GoSetting)}
	r, err := Build(*repo, getenv("WARDEN_DEFAULT_IMAGE"), m)
	if err != nil {
		fmt.Fprintf(stderr, "bot inspect: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return 1
		}
		return 0
	}
	writeText(stdout, r)
	return 0
}

func writeText(w io.Writer, r Report) {
	fmt.Fprintf(w, "read from:    %s (%s), the default branch\n", r.ReadFrom, short(r.Commit))
	fmt.Fprintf(w, "image:        %s\n", orNone(r.Image, r.ImageFrom))
	fmt.Fprintf(w, "setup:        %s\n", cmdText(r.Setup))
	writeMirrors(w, "setup", r.Setup)
	fmt.Fprintf(w, "test:         %s\n", cmdText(r.Test))
	writeMirrors(w, "test", r.Test)
	if len(r.Tools) > 0 {
		fmt.Fprintf(w, "needs on PATH: %s\n", strings.Join(r.Tools, ", "))
	}
	fmt.Fprintf(w, "instructions: %s\n", orNone(strings.Join(r.Instructions, ", "), ""))
	for _, name := range []string{"maintenance", "evolution"} {
		m := r.Modes[name]
		fmt.Fprintf(w, "%s: max_files %d, max_lines %d, auto_merge %v, approval %v, test changes %v\n  protected: %s\n",
			name, m.MaxFiles, m.MaxLines, m.AutoMerge, m.RequireApproval, m.AllowTestChanges, strings.Join(m.ProtectedPaths, " "))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// writeMirrors names the index each of the command's tools would use.
func writeMirrors(w io.Writer, kind string, c Command) {
	for _, m := range c.Mirrors {
		if m.URL == "" {
			fmt.Fprintf(w, "%s mirror: none (%s unset): the tool's own index\n", kind, m.Setting)
			continue
		}
		fmt.Fprintf(w, "%s mirror: %s=%s (%s)\n", kind, m.Setting, m.URL, strings.Join(m.Variables, ", "))
	}
}

func cmdText(c Command) string {
	switch {
	case c.Command == "":
		return "(none)"
	case c.DeclaredIn != "":
		return c.Command + "   (set in " + c.DeclaredIn + ")"
	}
	return c.Command + "   (inferred from " + c.InferredFrom + ")"
}

func orNone(v, from string) string {
	if v == "" {
		return "(none)"
	}
	if from != "" {
		return v + "   (from " + from + ")"
	}
	return v
}
