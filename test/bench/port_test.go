package bench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
)

// BenchmarkPortUnderAbuse is the public port under 200 stalled and 1,000
// oversized unsigned requests (from 127.0.0.1) while GitHub's signed
// deliveries (from 127.0.0.2) keep arriving: the bot's peak memory and CPU,
// and the slowest signed delivery, against the same bot before the abuse.
// Loopback only; every loop is bounded by a deadline.
func BenchmarkPortUnderAbuse(b *testing.B) {
	w := world.New(b, nil)
	pid := w.Bot.Pid()
	host := portHost(b, w.Bot.URL())
	baseRSS, baseLat := procKB(b, pid, "VmRSS:"), signedMax(b, w, 10, 100*time.Millisecond)
	cpu0 := procCPU(b, pid)
	b.ResetTimer()
	stop := time.Now().Add(15 * time.Second)
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() { portStall(host, stop) })
	}
	var refused atomic.Int64
	for range 20 {
		wg.Go(func() {
			for range 50 {
				if code := portOversized(host); code == http.StatusUnauthorized || code == http.StatusRequestEntityTooLarge {
					refused.Add(1)
				}
			}
		})
	}
	lat := signedMax(b, w, 50, 250*time.Millisecond)
	wg.Wait()
	b.StopTimer()
	peak, cpu := procKB(b, pid, "VmHWM:"), procCPU(b, pid)-cpu0
	b.ReportMetric(float64(peak)/1024, "peak_rss_MB")
	b.ReportMetric(float64(peak)/float64(baseRSS), "rss_ratio")
	b.ReportMetric(cpu, "bot_cpu_s")
	b.ReportMetric(float64(lat.Milliseconds()), "signed_max_ms")
	b.ReportMetric(float64(lat)/float64(max(baseLat, time.Millisecond)), "signed_latency_ratio")
	b.ReportMetric(float64(refused.Load()), "oversized_refused")
	if lat > 10*time.Second {
		b.Fatalf("a signed delivery took %s under abuse", lat)
	}
}

func portHost(b *testing.B, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	return u.Host
}

// portStall keeps one connection at a time sending 1 MiB of a declared
// 20 MiB body with a well-formed but wrong signature, then stalling; it
// reconnects when the server cuts it, until stop.
func portStall(host string, stop time.Time) {
	chunk := make([]byte, 1<<20)
	head := fmt.Sprintf("POST /webhooks HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: issues\r\nX-GitHub-Delivery: stall\r\n"+
		"X-Hub-Signature-256: sha256=%s\r\nContent-Length: %d\r\n\r\n", strings.Repeat("ab", 32), 20<<20)
	for time.Now().Before(stop) {
		c, err := net.DialTimeout("tcp", host, time.Second)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		_ = c.SetDeadline(stop)
		_, _ = c.Write([]byte(head))
		_, _ = c.Write(chunk)
		_, _ = c.Read(make([]byte, 1)) // until the server answers, cuts, or stop
		c.Close()
	}
}

// portOversized sends one unsigned request declaring 26 MiB, and 1 MiB of
// it unless answered within 500 ms; it returns the status the server
// answered (0 for none).
func portOversized(host string) int {
	c, err := net.DialTimeout("tcp", host, time.Second)
	if err != nil {
		return 0
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /webhooks HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: issues\r\nX-GitHub-Delivery: big\r\nContent-Length: %d\r\n\r\n", 26<<20)
	buf := make([]byte, 64)
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	n, _ := c.Read(buf)
	if n == 0 {
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = c.Write(make([]byte, 1<<20))
		n, _ = c.Read(buf)
	}
	f := strings.Fields(string(buf[:n]))
	if len(f) < 2 {
		return 0
	}
	code, _ := strconv.Atoi(f[1])
	return code
}

// signedMax sends n signed pings, every gap, from 127.0.0.2, and returns
// the slowest answer; a ping not answered 2xx fails the benchmark.
func signedMax(b *testing.B, w *world.World, n int, gap time.Duration) time.Duration {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, Timeout: 10 * time.Second}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		}}}
	body := harness.Fixture(b, "webhooks/ping.json")
	var worst time.Duration
	for i := range n {
		req := harness.NewDelivery(w.Bot.URL()+"/webhooks", "ping", fmt.Sprintf("ping-%d-%d", time.Now().UnixNano(), i), body, world.Secret)
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatalf("signed delivery: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			b.Fatalf("signed delivery answered %d", resp.StatusCode)
		}
		worst = max(worst, time.Since(t0))
		time.Sleep(gap)
	}
	return worst
}

// procKB reads a kB field of /proc/pid/status (VmRSS, VmHWM).
func procKB(b *testing.B, pid int, field string) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(rest)
			n, _ := strconv.ParseInt(f[0], 10, 64)
			return n
		}
	}
	b.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// procCPU is the process's user and system CPU seconds.
func procCPU(b *testing.B, pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(raw)[strings.LastIndexByte(string(raw), ')')+2:])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ
}
