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
	var stderr bytes.Buffer
	cmd := exec.Command(path, bwrapArgv(Spec{Argv: []string{"true"}, Home: home, Dir: home})[1:]...)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: bubblewrap cannot create its namespaces (%v: %s); allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; in a container: seccomp and AppArmor unconfined or a profile allowing unshare/clone of namespaces, see deploy/) or set %s=1", ErrUnavailable, err, strings.TrimSpace(stderr.String()), UnsafeEnv)
	}
	return nil
}

func bwrapPath() string { return bwrapBin }

// Describe says how commands are isolated here, for the start-up log and /ui.
func Describe() string {
	err := Available()
	switch {
	case err == nil:
		return "bubblewrap: own PID, network, IPC and user namespaces (network only through Warden's egress proxy, public addresses only); read-only system; only the worktree and a private HOME writable"
	case Unsafe():
		return "NONE: " + UnsafeEnv + "=1 runs repository commands without isolation (" + err.Error() + ")"
	}
	return "unavailable: repository commands are refused (" + err.Error() + ")"
}
