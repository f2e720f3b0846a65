package jobs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// startRedis runs `redis-server args...` on a free port for the test and
// returns the port; missing redis-server fails the test, never skips it.
func startRedis(t *testing.T, args ...string) int {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatal("redis-server is not installed (Debian: apt-get install redis-server)")
	}
	port := freePort(t, slices.Contains(args, "--cluster-enabled"))
	dir := t.TempDir()
	args = append(args, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no")
	cmd := exec.Command("redis-server", args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, func() bool { return redisCLI(port, "PING") == "PONG" }, "redis-server on port %d", port)
	return port
}

// freePort is a port nothing listens on; a cluster node also needs its
// bus port (port+10000) free and below 65536, which an ephemeral port from
// the kernel often is not (the node then never starts).
func freePort(t *testing.T, cluster bool) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !cluster {
			return port
		}
		if port+10000 > 65535 {
			continue
		}
		if bus, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+10000)); err == nil {
			bus.Close()
			return port
		}
	}
	t.Fatal("no free port with a free cluster bus port")
	return 0
}

func redisCLI(port int, args ...string) string {
	out, _ := exec.Command("redis-cli", append([]string{"-p", fmt.Sprint(port)}, args...)...).Output()
	return strings.TrimSpace(string(out))
}

func waitFor(t *testing.T, cond func() bool, what string, a ...any) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for "+what, a...)
		}
	}
}

// enqueueThrough opens the backend at url and queues one run task through it.
func enqueueThrough(t *testing.T, url string) {
	t.Helper()
	b, err := Open(url, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Ping(ctx); err != nil {
		t.Fatalf("ping through %s: %v", url, err)
	}
	q := NewQueue(b)
	defer q.Close()
	if res, err := q.EnqueueRun(ctx, payload(1)); err != nil || res != Queued {
		t.Fatalf("enqueue through %s: %v %v", url, res, err)
	}
	if res, _ := q.EnqueueRun(ctx, payload(1)); res != AlreadyQueued {
		t.Fatalf("second enqueue through %s: %v, want AlreadyQueued", url, res)
	}
}

// WARDEN_REDIS_URL may name a Sentinel group: Warden finds the master
// through a real sentinel and queues through it.
func TestOpenThroughSentinel(t *testing.T) {
	master := startRedis(t)
	conf := filepath.Join(t.TempDir(), "sentinel.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("sentinel monitor wardenmain 127.0.0.1 %d 1\n", master)), 0o600); err != nil {
		t.Fatal(err)
	}
	sentinel := startRedis(t, conf, "--sentinel")
	waitFor(t, func() bool {
		return strings.Contains(redisCLI(sentinel, "SENTINEL", "get-master-addr-by-name", "wardenmain"), fmt.Sprint(master))
	}, "sentinel to know the master")
	enqueueThrough(t, fmt.Sprintf("redis-sentinel://127.0.0.1:%d/0?master=wardenmain", sentinel))
}

// WARDEN_REDIS_URL may name a Redis Cluster: three masters made into a
// cluster with redis-cli, and Warden queues through the cluster client.
func TestOpenThroughCluster(t *testing.T) {
	var addrs []string
	var ports []int
	for range 3 {
		p := startRedis(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
		ports = append(ports, p)
		addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", p))
	}
	out, err := exec.Command("redis-cli", append([]string{"--cluster", "create"}, append(addrs, "--cluster-yes")...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	// Every node must agree, not just the one asked first.
	for _, p := range ports {
		waitFor(t, func() bool { return strings.Contains(redisCLI(p, "CLUSTER", "INFO"), "cluster_state:ok") }, "cluster_state:ok on port %d", p)
	}
	enqueueThrough(t, "redis-cluster://"+strings.Join(addrs, ","))
}
