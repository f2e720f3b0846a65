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
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/test/gitfixture"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
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
			return workspace.Command{Tree: sandbox.Tree{Dir: dir}, Kind: sandbox.Setup, Cache: cache}
		}},
		{"network-true-test", func(dir, cache string) workspace.Command {
			return workspace.Command{Tree: sandbox.Tree{Dir: dir}, Kind: sandbox.Test, Network: sandbox.Egress}
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

// The same attack through the real binary: the repository's `setup:` goes
// for the bot's own Redis database (where the spend ledger lives) by every
// road; the key survives and the outcome record shows the proxy's refusal.
func TestEgressSetupThroughBinaryCannotTouchRedis(t *testing.T) {
	w := world.New(t, world.WithConfig("setup: sh scripts/attack.sh\n"+"test: go test ./...\n"))
	rdb := redis.NewClient(&redis.Options{Addr: harness.RedisAddr(t), DB: w.DB})
	t.Cleanup(func() { _ = rdb.Close() })
	const key = "warden:spend:task:acme/calc#999" // another task's ledger
	if err := rdb.Set(context.Background(), key, "0.99", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	_, p, _ := strings.Cut(harness.RedisAddr(t), ":")
	port, _ := strconv.Atoi(p)
	attack := "printf 'SELECT " + strconv.Itoa(w.DB) + "\\r\\n'; sleep 0.2; printf 'DEL " + key + "\\r\\n'"
	script := "(" + attack + ") | socat -t2 - TCP:127.0.0.1:" + p + ",connect-timeout=2 || true\n" +
		"(" + attack + ") | socat -t2 - PROXY:127.0.0.1:127.0.0.1:" + p + ",proxyport=${HTTPS_PROXY##*:},connect-timeout=2 || true\n"
	gitfixture.Commit(t, w.Bare, "main", map[string]string{"scripts/attack.sh": script})
	w.Model.Script(world.HappyScript)
	w.Label(51, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(51, 150*time.Second)
	if v, err := rdb.Get(context.Background(), key).Result(); err != nil || v != "0.99" {
		t.Fatalf("the setup command reached the bot's Redis: %s = %q (%v); outcome %+v", key, v, err, rec)
	}
	var denied bool
	for _, e := range rec.Egress {
		if e.Stage == "Setup" && e.Port == port && e.Verdict == "denied" {
			denied = true
		}
	}
	if !denied {
		t.Errorf("the outcome record does not show the refused connection: %+v", rec.Egress)
	}
}
