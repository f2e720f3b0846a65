package sandbox

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// The helper is the Warden binary bound into every sandbox at limiterPath:
// it applies the caps (limits.go) and connects the sandbox's loopback to
// Warden's sockets (forward.go). It is the running binary unless UseHelper
// named another, and nothing of it comes from the sandbox's root.

var (
	exeOnce sync.Once
	exePath string
	exeErr  error
	// helperPath is UseHelper's binary; nil, the running one.
	helperPath atomic.Pointer[string]
	// interps caches each binary's ELF interpreter ("" when static).
	interps sync.Map
)

// limiter is the path of the helper binary.
func limiter() (string, error) {
	if p := helperPath.Load(); p != nil {
		return *p, nil
	}
	exeOnce.Do(func() {
		exePath, exeErr = os.Executable()
		if exeErr == nil {
			exePath, exeErr = filepath.EvalSymlinks(exePath)
		}
		if exeErr != nil {
			exeErr = fmt.Errorf("sandbox: the limiter (this program) cannot be found: %w", exeErr)
		}
	})
	return exePath, exeErr
}

// UseHelper makes path, a static build of Warden's bot, the binary bound
// into every sandbox instead of the running one (a test binary built with
// the race detector is dynamically linked, so it cannot start in an image).
func UseHelper(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("sandbox helper %s: %w", path, err)
	}
	interp, err := interpreter(abs)
	if err != nil {
		return err
	}
	if interp != "" {
		return fmt.Errorf("sandbox helper %s is dynamically linked (it needs %s): build it with CGO_ENABLED=0", abs, interp)
	}
	helperPath.Store(&abs)
	return nil
}

// helperFor is the helper for a sandbox whose system is root ("" for the
// worker's own). In an image it must be static: a dynamically linked one
// would load its interpreter and libc from the image, which may have none.
func helperFor(root string) (string, error) {
	exe, err := limiter()
	if err != nil || root == "" {
		return exe, err
	}
	interp, err := interpreter(exe)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if interp != "" {
		return "", fmt.Errorf("%w: %s, which Warden binds into the sandbox to apply its caps and connect it to the egress proxy, is dynamically linked (it needs %s), so it cannot start in an image: build bot static (CGO_ENABLED=0, as make build and deploy/Dockerfile do)", ErrUnavailable, exe, interp)
	}
	return exe, nil
}

// interpreter is the ELF interpreter (PT_INTERP) path is linked against, ""
// for a static binary.
func interpreter(path string) (string, error) {
	if v, ok := interps.Load(path); ok {
		return v.(string), nil
	}
	f, err := elf.Open(path)
	if err != nil {
		return "", fmt.Errorf("sandbox helper %s: %w", path, err)
	}
	defer f.Close()
	interp := ""
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			return "", fmt.Errorf("sandbox helper %s: read its interpreter: %w", path, err)
		}
		interp = string(b)
		for len(interp) > 0 && interp[len(interp)-1] == 0 {
			interp = interp[:len(interp)-1]
		}
		if interp == "" {
			interp = "an interpreter"
		}
	}
	interps.Store(path, interp)
	return interp, nil
}
