package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// UnsafeEnv is the operator's explicit opt-out (CONTRACT §11): with it set to
// 1, commands run without isolation where bubblewrap cannot be had.
const UnsafeEnv = "WARDEN_UNSAFE_NO_SANDBOX"

// ErrUnavailable wraps every reason the sandbox cannot run.
var ErrUnavailable = errors.New("sandbox unavailable")

var (
	probeOnce sync.Once
	probeErr  error
	bwrapBin  = "bwrap"
	// sizedTmpfs: this bubblewrap sizes a tmpfs (--size, 0.7 and later).
	sizedTmpfs = true
)

// Unsafe reports whether the operator opted out of isolation.
func Unsafe() bool { return os.Getenv(UnsafeEnv) == "1" }

// Available reports whether bubblewrap works here, checked once by running
// a command in exactly the namespaces Run uses. The error names what to do.
func Available() error {
	probeOnce.Do(func() { probeErr = probe() })
	return probeErr
}

func probe() error {
	sweepGroups()
	path, err := exec.LookPath(bwrapBin)
	if err != nil {
		return fmt.Errorf("%w: bubblewrap is not installed; install the bubblewrap package (apt-get install bubblewrap, apk add bubblewrap, dnf install bubblewrap) or set %s=1 to run repository commands without isolation", ErrUnavailable, UnsafeEnv)
	}
	bwrapBin = path
	home, err := os.MkdirTemp("", "warden-probe-")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer os.RemoveAll(home)
	exe, err := limiter()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	// Exactly the namespaces, mounts and limiter Run uses; a bubblewrap
	// too old for a sized tmpfs runs without the size.
	try := func() error {
		s := spec{argv: []string{"true"}, home: home, dir: home, env: []string{"PATH=/usr/bin:/bin"}, tmpSize: 1 << 20}
		argv := bwrapArgv(s, exe, append(DefaultLimits().prefix(limiterPath, nil), s.argv...))
		var stderr bytes.Buffer
		cmd := exec.Command(path, argv[1:]...)
		cmd.Env = s.env
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
		}
		return nil
	}
	err = try()
	if err != nil {
		sizedTmpfs = false
		if try() == nil {
			return nil
		}
		sizedTmpfs = true
		return fmt.Errorf("%w: bubblewrap cannot create its namespaces (%v); allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; in a container: seccomp and AppArmor unconfined or a profile allowing unshare/clone of namespaces, see deploy/) or set %s=1", ErrUnavailable, err, UnsafeEnv)
	}
	return nil
}

func bwrapPath() string { return bwrapBin }
