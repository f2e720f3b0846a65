// Package inspect is `bot inspect`: what Warden would use in a checkout —
// the image, the setup and test commands and where each came from, the
// instruction files, each mode's limits and protected paths — without
// running anything (CONTRACT §12).
package inspect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/warden-bot/warden/modes"
	"github.com/warden-bot/warden/repocontext"
	"github.com/warden-bot/warden/toolchain"
)

// Command is one command and its source: inferred_from names the file it
// was inferred from; declared_in the configuration that set it.
type Command struct {
	Command      string `json:"command"`
	InferredFrom string `json:"inferred_from"`
	DeclaredIn   string `json:"declared_in,omitempty"`
}

// Mode is one mode's limits and protected paths.
type Mode struct {
	MaxFiles         int      `json:"max_files"`
	MaxLines         int      `json:"max_lines"`
	AutoMerge        bool     `json:"auto_merge"`
	RequireApproval  bool     `json:"require_approval"`
	AllowTestChanges bool     `json:"allow_test_changes"`
	ProtectedPaths   []string `json:"protected_paths"`
}

// Report is the JSON shape of `bot inspect --json`.
type Report struct {
	Image        string          `json:"image"`
	ImageFrom    string          `json:"image_from"`
	Setup        Command         `json:"setup"`
	Test         Command         `json:"test"`
	Tools        []string        `json:"tools,omitempty"`
	Instructions []string        `json:"instructions"`
	Modes        map[string]Mode `json:"modes"`
	Notes        []string        `json:"notes,omitempty"`
}

// Build reads the checkout at dir. defaultImage is WARDEN_DEFAULT_IMAGE.
func Build(dir, defaultImage string) (Report, error) {
	data, err := os.ReadFile(filepath.Join(dir, ".github", "warden.yml"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Report{}, fmt.Errorf("read .github/warden.yml: %w", err)
	}
	cfg, err := modes.Parse(data)
	if err != nil {
		return Report{}, fmt.Errorf("invalid .github/warden.yml: %w", err)
	}
	fsys := os.DirFS(dir)
	p := toolchain.Resolve(fsys, toolchain.Declared{Image: cfg.Image, Setup: cfg.Setup, Test: cfg.Test, DefaultImage: defaultImage})
	r := Report{Image: p.Image, ImageFrom: p.ImageFrom, Setup: command(p.Setup, p.SetupFrom), Test: command(p.Test, p.TestFrom),
		Tools: p.Tools, Instructions: []string{}, Modes: map[string]Mode{}}
	if p.Note != "" {
		r.Notes = append(r.Notes, p.Note)
	}
	if p.Test == "" {
		r.Notes = append(r.Notes, "no test command: tasks end blocked; "+toolchain.Hint)
	}
	if p.Image == "" {
		r.Notes = append(r.Notes, "no image: commands run with the worker's own /usr (set image: or WARDEN_DEFAULT_IMAGE)")
	}
	for _, f := range repocontext.InstructionFiles {
		if fi, err := fs.Stat(fsys, f); err == nil && fi.Mode().IsRegular() {
			r.Instructions = append(r.Instructions, f)
		}
	}
	for _, m := range []modes.Mode{modes.Maintenance, modes.Evolution} {
		pol := cfg.Policy(m)
		r.Modes[string(m)] = Mode{MaxFiles: pol.MaxFiles, MaxLines: pol.MaxLines, AutoMerge: pol.AutoMerge,
			RequireApproval: pol.RequireApproval, AllowTestChanges: pol.AllowTestChanges, ProtectedPaths: dedupe(pol.Limits.Protected)}
	}
	return r, nil
}

func command(line, from string) Command {
	switch {
	case line == "":
		return Command{}
	case from == toolchain.ConfigFile:
		return Command{Command: line, DeclaredIn: from}
	}
	return Command{Command: line, InferredFrom: from}
}

// dedupe keeps each glob once, in order (the policy lists the always-protected
// paths both as such and among the defaults).
func dedupe(globs []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, g := range globs {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}
