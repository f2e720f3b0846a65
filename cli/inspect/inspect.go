// Package inspect is `bot inspect`: what Warden would use in a checkout —
// the image, the setup and test commands and where each came from, the
// instruction files, each mode's limits and protected paths — without
// running anything (CONTRACT §12).
package inspect

import (
	"context"
	"fmt"
	"time"

	"github.com/warden-bot/warden/environment/mirrors"
	"github.com/warden-bot/warden/environment/toolchain"
	"github.com/warden-bot/warden/modes"
	"github.com/warden-bot/warden/trusted"
)

// Command is one command and its source: inferred_from names the file it
// was inferred from; declared_in the configuration that set it.
type Command struct {
	Command      string `json:"command"`
	InferredFrom string `json:"inferred_from"`
	DeclaredIn   string `json:"declared_in,omitempty"`
	// Mirrors are the package mirrors its tools would use (CONTRACT §12).
	Mirrors []Mirror `json:"mirrors,omitempty"`
}

// Mirror is an operator's mirror setting a command reads: url is empty when
// the setting is unset and the tool uses its own index.
type Mirror struct {
	Setting   string   `json:"setting"`
	URL       string   `json:"url"`
	Variables []string `json:"variables"`
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

// Report is the JSON shape of `bot inspect --json`. ReadFrom and Commit
// name the default branch the inputs were read from.
type Report struct {
	ReadFrom     string          `json:"read_from"`
	Commit       string          `json:"commit"`
	Image        string          `json:"image"`
	ImageFrom    string          `json:"image_from"`
	Setup        Command         `json:"setup"`
	Test         Command         `json:"test"`
	Tools        []string        `json:"tools,omitempty"`
	Instructions []string        `json:"instructions"`
	Modes        map[string]Mode `json:"modes"`
	Notes        []string        `json:"notes,omitempty"`
}

// Build reads the checkout at dir as Warden would: from its default
// branch's head through git's objects (package trusted), whatever branch
// the checkout is on and whatever its files hold. defaultImage is
// WARDEN_DEFAULT_IMAGE.
func Build(dir, defaultImage string, mirrors mirrors.Mirrors) (Report, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in, src, err := trusted.ReadLocal(ctx, dir, defaultImage)
	if err != nil {
		return Report{}, err
	}
	cfg, p := in.Config, in.Plan
	r := Report{ReadFrom: src.Ref, Commit: src.Commit, Image: p.Image, ImageFrom: p.ImageFrom, Setup: command(p.Setup, p.SetupFrom, mirrors), Test: command(p.Test, p.TestFrom, mirrors),
		Tools: p.Tools, Instructions: []string{}, Modes: map[string]Mode{}}
	if src.Differs() {
		r.Notes = append(r.Notes, fmt.Sprintf("the checkout is on %s; this is what %s (the default branch, %s) holds, which is what Warden reads", orDetached(src.Current), src.Ref, short(src.Commit)))
	}
	r.Notes = append(r.Notes, in.Notes...)
	if p.Note != "" {
		r.Notes = append(r.Notes, p.Note)
	}
	if p.Test == "" {
		r.Notes = append(r.Notes, "no test command: tasks end blocked; "+toolchain.Hint)
	}
	if p.Image == "" {
		r.Notes = append(r.Notes, "no image: commands run with the worker's own /usr (set image: or WARDEN_DEFAULT_IMAGE)")
	}
	for _, f := range trusted.InstructionFiles {
		if fi, err := in.Files.Stat(f); err == nil && fi.Mode().IsRegular() {
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

func command(line, from string, m mirrors.Mirrors) Command {
	c := Command{Command: line, InferredFrom: from}
	switch {
	case line == "":
		return Command{}
	case from == toolchain.ConfigFile:
		c = Command{Command: line, DeclaredIn: from}
	}
	for _, u := range m.Uses(line) {
		c.Mirrors = append(c.Mirrors, Mirror{Setting: u.Setting, URL: u.URL, Variables: u.Names})
	}
	return c
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

func orDetached(branch string) string {
	if branch == "" {
		return "a detached HEAD"
	}
	return "branch " + branch
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
