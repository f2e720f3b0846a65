// Package trusted is the one reader of what decides how Warden runs a
// repository (CONTRACT §13 "Trusted inputs"): .github/warden.yml, the
// devcontainer's image, the files commands are inferred from, the
// instruction files and the code owners. It reads them from the default branch's head through
// git's object store, never from a checkout or a PR head, and never through
// a symbolic link: for first attempts, retries continuing a PR and
// follow-ups alike, a model's edit to any of them on Warden's branch
// changes nothing about how Warden runs.
package trusted

import (
	"context"
	"errors"
	"fmt"

	"github.com/warden-bot/warden/environment/toolchain"
	"github.com/warden-bot/warden/github/codeowners"
	"github.com/warden-bot/warden/modes"
)

// ConfigPath is the repository's Warden configuration.
const ConfigPath = toolchain.ConfigFile

// DevcontainerFiles are where a repository names its image, in the order
// they are looked at.
var DevcontainerFiles = []string{".devcontainer/devcontainer.json", ".devcontainer.json"}

// Inputs is everything that decides how Warden runs a repository, as the
// default branch's head has it.
type Inputs struct {
	Commit    string
	ConfigRaw []byte         // .github/warden.yml (nil when the base has none)
	Config    modes.Config   // ConfigRaw parsed over the defaults
	Plan      toolchain.Plan // image, setup and test, and where each came from
	Docs      []Doc          // the instruction files, capped
	Files     *Tree          // the base tree's files, for inference and inspection
	Notes     []string       // what was found but not used, e.g. a symbolic link
	// CodeOwners is the base's CODEOWNERS (nil when it has none), read
	// from CodeOwnersPath: whom Warden asks to review (codeowners.go).
	CodeOwners     *codeowners.File
	CodeOwnersPath string
}

// ConfigError is a .github/warden.yml on the base that cannot be used:
// invalid, or not a regular file. Retrying does not help; a writer's fix does.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return "invalid " + ConfigPath + ": " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Read reads the inputs at commit through git. defaultImage is
// WARDEN_DEFAULT_IMAGE, used when the repository names no image.
func Read(ctx context.Context, git Git, commit, defaultImage string) (*Inputs, error) {
	t, err := OpenTree(ctx, git, commit)
	if err != nil {
		return nil, err
	}
	in := &Inputs{Commit: commit, Files: t}
	in.ConfigRaw, err = t.ReadFile(ConfigPath)
	switch {
	case errors.Is(err, ErrSymlink), errors.Is(err, ErrNotFile):
		// a writer meant a configuration: the defaults in its place would
		// quietly loosen what they asked for
		return nil, &ConfigError{fmt.Errorf("at %s it is not a regular file (a symbolic link or a submodule, which Warden does not follow); make it a file", short(commit))}
	case err != nil && !isAbsent(err):
		return nil, fmt.Errorf("read %s: %w", ConfigPath, err)
	}
	if in.Config, err = modes.Parse(in.ConfigRaw); err != nil {
		return nil, &ConfigError{err}
	}
	in.Plan = toolchain.Resolve(t, toolchain.Declared{Image: in.Config.Image, Setup: in.Config.Setup, Test: in.Config.Test, DefaultImage: defaultImage})
	in.Docs = readInstructions(t, InstructionCap)
	in.Notes = unfollowed(t, append(append(append([]string{}, DevcontainerFiles...), InstructionFiles...), CodeOwnersFiles...))
	in.CodeOwners, in.CodeOwnersPath, err = readCodeOwners(t)
	if err != nil {
		return nil, err
	}
	return in, nil
}

// unfollowed notes each of names that is a symbolic link on the base.
func unfollowed(t *Tree, names []string) []string {
	var notes []string
	for _, n := range names {
		if _, err := t.stat(n); errors.Is(err, ErrSymlink) {
			notes = append(notes, n+" is a symbolic link on the default branch; Warden does not follow it and reads it as absent")
		}
	}
	return notes
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
