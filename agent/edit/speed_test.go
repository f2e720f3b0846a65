package edit

import (
	"fmt"
	"runtime"
	"sort"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the CPU time the calling OS thread has used (RUSAGE_THREAD):
// on a shared, loaded machine it counts the work, not the waiting.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1, &ru) // 1 = RUSAGE_THREAD on Linux
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkApplyBlock times Parse+Apply of every corpus block (issue #19:
// under 1 ms per block): wall time and the thread's CPU time, as the mean,
// the 99th percentile and the slowest block of the last round.
func BenchmarkApplyBlock(b *testing.B) {
	cs := loadCorpus(b)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	wall, cpu := make([]time.Duration, len(cs)), make([]time.Duration, len(cs))
	for b.Loop() {
		for i, c := range cs {
			w0, c0 := time.Now(), threadCPU()
			applyBlock(c)
			wall[i], cpu[i] = time.Since(w0), threadCPU()-c0
		}
	}
	report := func(name string, d []time.Duration) string {
		s := append([]time.Duration{}, d...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		var sum time.Duration
		for _, x := range s {
			sum += x
		}
		mean, p99, worst := sum/time.Duration(len(s)), s[len(s)*99/100], s[len(s)-1]
		b.ReportMetric(float64(mean.Nanoseconds()), "ns/block-"+name)
		b.ReportMetric(float64(p99.Nanoseconds()), "ns/block-p99-"+name)
		return fmt.Sprintf("%s: mean %.0f µs, p99 %.0f µs, slowest %.0f µs", name, us(mean), us(p99), us(worst))
	}
	fmt.Printf("\n%d blocks, Parse + Apply per block, file in memory — %s; %s\n", len(cs), report("wall", wall), report("cpu", cpu))
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
