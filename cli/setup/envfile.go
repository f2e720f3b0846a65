package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrExists is returned when the .env file exists and Force is off.
var ErrExists = errors.New("exists (use --force to overwrite it)")

// envVar is one line of the .env file.
type envVar struct{ name, value string }

// renderEnv writes the variables in a form both `set -a; . ./.env` and
// docker compose's env_file read: every value single-quoted, so the PEM's
// newlines and any shell metacharacters are taken literally. A value holding
// a single quote or a backslash (which compose reads as an escape) cannot be
// written that way and is refused.
func renderEnv(header string, vars []envVar) ([]byte, error) {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(header), "\n") {
		b.WriteString("# " + line + "\n")
	}
	for _, v := range vars {
		if strings.ContainsAny(v.value, "'\\\x00") {
			return nil, fmt.Errorf("%s holds a quote, backslash or NUL character and cannot be written safely", v.name)
		}
		b.WriteString(v.name + "='" + v.value + "'\n")
	}
	return []byte(b.String()), nil
}

// writeEnvFile creates path with mode 0600 atomically: the content goes to a
// temporary file in the same directory, which is then linked into place
// (refusing an existing file) or, with force, renamed over it.
func writeEnvFile(path string, content []byte, force bool) error {
	if !force {
		if err := refuseExisting(path); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".env-warden-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := fillPrivate(tmp, content); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if force {
		if err := os.Rename(tmp.Name(), path); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	return linkNew(tmp.Name(), path)
}

// fillPrivate makes f 0600 (whatever the umask), writes content and syncs.
func fillPrivate(f *os.File, content []byte) error {
	defer f.Close()
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// linkNew puts tmp at path without ever replacing an existing file.
func linkNew(tmp, path string) error {
	err := os.Link(tmp, path)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s %w", path, ErrExists)
	}
	if err == nil {
		return nil
	}
	// A file system without hard links: check, then rename.
	if err := refuseExisting(path); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func refuseExisting(path string) error {
	_, err := os.Lstat(path)
	switch {
	case err == nil:
		return fmt.Errorf("%s %w", path, ErrExists)
	case errors.Is(err, fs.ErrNotExist):
		return nil
	default:
		return fmt.Errorf("check %s: %w", path, err)
	}
}
