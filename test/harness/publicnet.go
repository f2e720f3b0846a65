package harness

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// PublicServer serves h on an address Warden's egress proxy counts as
// public, without a packet leaving this machine: a network namespace the
// test creates, joined to this one by a veth pair, holds the server at
// 11.<a>.<b>.2 (the host end, 11.<a>.<b>.1, is the worker's own address and
// so never reachable). It needs root (CAP_NET_ADMIN) and iproute2; without
// them the test fails and says so. Everything is removed at cleanup.
func PublicServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	if _, err := exec.LookPath("ip"); err != nil || os.Geteuid() != 0 {
		t.Fatal("PublicServer needs root and iproute2 (ip): it creates a network namespace as the test's \"internet\"")
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	ns, host, peer := "warden-pub-"+id, "wph"+id, "wpp"+id
	a, c := int(b[0]), int(b[1])
	hostIP, peerIP := fmt.Sprintf("11.%d.%d.1", a, c), fmt.Sprintf("11.%d.%d.2", a, c)
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ip("netns", "add", ns)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	ip("link", "add", host, "type", "veth", "peer", "name", peer)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", host).Run() })
	ip("link", "set", peer, "netns", ns)
	ip("addr", "add", hostIP+"/30", "dev", host)
	ip("link", "set", host, "up")
	ip("-n", ns, "addr", "add", peerIP+"/30", "dev", peer)
	ip("-n", ns, "link", "set", peer, "up")
	ip("-n", ns, "link", "set", "lo", "up")
	ln, err := listenIn(ns, peerIP+":0")
	if err != nil {
		t.Fatalf("listen in %s: %v", ns, err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// listenIn opens a TCP listener inside the named network namespace: the
// socket stays in that namespace whichever thread accepts on it.
func listenIn(ns, addr string) (net.Listener, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return nil, err
	}
	defer orig.Close()
	target, err := os.Open("/var/run/netns/" + ns)
	if err != nil {
		return nil, err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("setns: %w", err)
	}
	ln, lerr := net.Listen("tcp", addr)
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		// This thread is in the wrong namespace: it must never run Go code
		// again, so it stays locked and dies with the goroutine.
		runtime.LockOSThread()
		return nil, fmt.Errorf("setns back: %w", err)
	}
	return ln, lerr
}
