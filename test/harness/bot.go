package harness

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var builds sync.Map // tags → *build

type build struct {
	once sync.Once
	path string
	err  error
}

// BuildBinary builds ./cmd/bot, static, once per test process.
func BuildBinary(t testing.TB) string { return BuildBinaryTags(t, "") }

// BuildBinaryTags builds ./cmd/bot with build tags (e.g. "chaos", which
// compiles in the fault injection end-to-end tests use), once per process.
func BuildBinaryTags(t testing.TB, tags string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(tags, &build{})
	b := v.(*build)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "warden-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "bot")
		cmd := exec.Command("go", "build", "-tags", tags, "-o", b.path, "./cmd/bot")
		cmd.Dir = Root(t)
		// Static, as make build makes it: the bot is the helper bound into
		// every sandbox, images without libc included.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build -tags %q: %v\n%s", tags, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// Bot is a running `bot serve`.
type Bot struct {
	t    testing.TB
	cmd  *exec.Cmd
	url  string
	mu   sync.Mutex
	logs bytes.Buffer
	done chan struct{}
}

type syncWriter struct{ b *Bot }

func (w syncWriter) Write(p []byte) (int, error) {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	return w.b.logs.Write(p)
}

// FreeAddr returns a free loopback address.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// StartBot runs `bot serve` with env (and nothing of the test's environment
// but PATH, HOME and Go's variables), waits for /healthz, and stops it at cleanup.
func StartBot(t testing.TB, env map[string]string, args ...string) *Bot {
	t.Helper()
	return StartBinary(t, BuildBinary(t), env, args...)
}

// StartBinary is StartBot with a given binary (see BuildBinaryTags). The
// port FreeAddr found can be taken by another process before the bot binds
// it (other packages' tests run beside this one), so a bot that exits for
// that reason is started again on another port.
func StartBinary(t testing.TB, bin string, env map[string]string, args ...string) *Bot {
	t.Helper()
	for try := 1; ; try++ {
		b := launch(t, bin, env, args)
		err := b.waitHealthy(20 * time.Second)
		if err == nil {
			return b
		}
		if try < 3 && strings.Contains(b.Logs(), "address already in use") {
			t.Logf("bot start %d: its port was taken; trying another", try)
			continue
		}
		t.Fatalf("%v:\n%s", err, b.Logs())
	}
}

// OpsPassword is the operator password every test bot gets unless the test
// sets its own: on the shared address /metrics needs it.
const OpsPassword = "e2e-ops-password"

// GetOps is GET url with the operator password.
func GetOps(url string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth("ops", OpsPassword)
	return http.DefaultClient.Do(req)
}

// launch starts `bin serve` on a free loopback port.
func launch(t testing.TB, bin string, env map[string]string, args []string) *Bot {
	t.Helper()
	addr := FreeAddr(t)
	b := &Bot{t: t, url: "http://" + addr, done: make(chan struct{})}
	b.cmd = exec.Command(bin, append([]string{"serve"}, args...)...)
	// One address for everything unless a test sets WARDEN_OPS_ADDR (env wins: exec keeps the last value).
	b.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "WARDEN_ADDR=" + addr, "WARDEN_OPS_ADDR=shared", "WARDEN_CI_GRACE=0s",
		"WARDEN_UI_PASSWORD=" + OpsPassword, // shared serves /metrics only behind the operator password
		"WARDEN_DELIVERY_TTL=175200h"}       // GitHub's example payloads are years old: older than the window is refused
	for _, k := range []string{"GOCACHE", "GOPATH", "GOMODCACHE", "GOFLAGS", "GOROOT", "GOPROXY"} {
		if v, ok := os.LookupEnv(k); ok {
			b.cmd.Env = append(b.cmd.Env, k+"="+v)
		}
	}
	for k, v := range env {
		b.cmd.Env = append(b.cmd.Env, k+"="+v)
	}
	b.cmd.Stdout, b.cmd.Stderr = syncWriter{b}, syncWriter{b}
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { b.cmd.Wait(); close(b.done) }()
	t.Cleanup(b.Stop)
	return b
}

// waitHealthy polls /healthz until it answers 200, the bot exits, or d passes.
func (b *Bot) waitHealthy(d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		resp, err := http.Get(b.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-b.done:
			return errors.New("bot exited before it was healthy")
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("bot not healthy after %s", d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// URL is the bot's base URL.
func (b *Bot) URL() string { return b.url }

// Logs is everything the bot printed so far.
func (b *Bot) Logs() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.logs.String()
}

// LogsSince is what the bot printed from byte offset off on, and the offset
// to pass next time: a long-running reader copies only what is new.
func (b *Bot) LogsSince(off int) (string, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	all := b.logs.Bytes()
	off = min(max(off, 0), len(all))
	return string(all[off:]), len(all)
}

// Stop sends SIGTERM and, after 15 s, SIGKILL.
func (b *Bot) Stop() {
	select {
	case <-b.done:
		return
	default:
	}
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(15 * time.Second):
		b.Kill()
	}
}

// Kill sends SIGKILL to the bot's process group.
func (b *Bot) Kill() {
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	<-b.done
}

// Pid is the bot's process id (for /proc readings: RSS, open files).
func (b *Bot) Pid() int { return b.cmd.Process.Pid }

// Done is closed when the bot exits.
func (b *Bot) Done() <-chan struct{} { return b.done }

// ExitCode is the bot's exit code once it has exited.
func (b *Bot) ExitCode() int { <-b.done; return b.cmd.ProcessState.ExitCode() }
