package chaos

import (
	"net"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// ownRedis is a redis-server the test may kill and start again on the same
// port and directory. It persists every write before answering
// (appendfsync always), as Warden's documented deployment requires: a
// Redis that forgets acknowledged writes loses queued work by definition.
type ownRedis struct {
	t    *testing.T
	addr string
	dir  string
	cmd  *exec.Cmd
}

func startOwnRedis(t *testing.T, addr string) *ownRedis {
	t.Helper()
	r := &ownRedis{t: t, addr: addr, dir: t.TempDir()}
	r.start()
	t.Cleanup(func() { r.stop(syscall.SIGKILL) })
	return r
}

func (r *ownRedis) start() {
	r.t.Helper()
	_, port, _ := net.SplitHostPort(r.addr)
	r.cmd = exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--dir", r.dir,
		"--save", "", "--appendonly", "yes", "--appendfsync", "always",
		"--logfile", filepath.Join(r.dir, "redis.log"))
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("start redis-server (install it: apt-get install redis-server, or brew install redis): %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.Dial("tcp", r.addr); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("redis-server did not listen on %s within 10 s (log in %s)", r.addr, r.dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends sig and waits for the server to exit.
func (r *ownRedis) stop(sig syscall.Signal) {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Signal(sig)
	_ = r.cmd.Wait()
	r.cmd = nil
}
