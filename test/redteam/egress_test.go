package redteam

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/workspace"
)

// Threat-model row "the network": a sandboxed command with network (setup:,
// network: true) must not reach anything on the worker's loopback — above
// all Redis, whose queue, ledger and payloads Warden trusts. The command is
// the attacker: it looks Redis up in /proc/net/tcp, then deletes a key over
// a direct connection and through the egress proxy's CONNECT.

// egressRedis is the test's Redis (scripts/with-redis.sh) with a key the
// attack tries to delete.
func egressRedis(t *testing.T) (*redis.Client, string, int) {
	t.Helper()
	addr := os.Getenv("WARDEN_TEST_REDIS_ADDR")
	if addr == "" {
		t.Fatal("WARDEN_TEST_REDIS_ADDR is not set: run under scripts/with-redis.sh")
	}
	_, p, _ := strings.Cut(addr, ":")
	port, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("port of %s: %v", addr, err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = rdb.Close() })
	key := "redteam:egress:" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := rdb.Set(context.Background(), key, "spent", time.Minute).Err(); err != nil {
		t.Fatalf("set %s: %v", key, err)
	}
	return rdb, key, port
}

// egressAttack is the hostile command: find the port, then try everything.
func egressAttack(key string, port int) string {
	hex := strings.ToUpper(strconv.FormatInt(int64(port), 16))
	for len(hex) < 4 {
		hex = "0" + hex
	}
	del := "printf 'DEL " + key + "\\r\\n'"
	return "if grep -q ':" + hex + " ' /proc/net/tcp; then echo FOUND-IN-PROC; fi\n" +
		del + " | socat -t2 - TCP:127.0.0.1:" + strconv.Itoa(port) + ",connect-timeout=2 && echo DIRECT-SENT\n" +
		"if [ -n \"$HTTPS_PROXY\" ]; then pp=${HTTPS_PROXY##*:}; " + del + " | socat -t2 - PROXY:127.0.0.1:127.0.0.1:" + strconv.Itoa(port) +
		",proxyport=$pp,connect-timeout=2 && echo PROXY-SENT; fi\n" +
		"true\n"
}

func TestEgressSandboxedCommandCannotReachHostRedis(t *testing.T) {
	if _, err := exec.LookPath("socat"); err != nil {
		t.Fatal("socat is required (apt-get install socat)")
	}
	for _, tc := range []struct {
		name string
		cmd  func(dir, cache string) workspace.Command
	}{
		{"setup", func(dir, cache string) workspace.Command {
			return workspace.Command{Dir: dir, Setup: true, Cache: cache}
		}},
		{"network-true-test", func(dir, cache string) workspace.Command {
			return workspace.Command{Dir: dir, Network: true}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rdb, key, port := egressRedis(t)
			dir := t.TempDir()
			c := tc.cmd(dir, filepath.Join(t.TempDir(), "cache"))
			c.Line, c.Timeout = egressAttack(key, port), time.Minute
			res := workspace.Run(context.Background(), c)
			if res.Err != nil {
				t.Fatalf("command did not run: %v", res.Err)
			}
			t.Logf("attack output:\n%s", res.Output)
			n, err := rdb.Exists(context.Background(), key).Result()
			if err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Fatalf("the sandboxed %s command deleted %s in the worker's Redis", tc.name, key)
			}
			if strings.Contains(res.Output, "FOUND-IN-PROC") {
				t.Errorf("the sandboxed %s command saw the worker's Redis in /proc/net/tcp", tc.name)
			}
		})
	}
}
