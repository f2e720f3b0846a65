package localization

import (
	"fmt"
	"sort"
	"testing"
	"time"
)

func recall(want, got []string, n int) float64 {
	if n > 0 && len(got) > n {
		got = got[:n]
	}
	set := map[string]bool{}
	for _, g := range got {
		set[g] = true
	}
	hit := 0
	for _, w := range want {
		if set[w] {
			hit++
		}
	}
	return float64(hit) / float64(len(want))
}

func report(b *testing.B, corpus []instance, systems []string, res map[string][]result, builds map[string]time.Duration, sizes map[string]int) {
	repos, langs := map[string]bool{}, map[string]int{}
	for _, in := range corpus {
		repos[in.Repo] = true
		langs[in.Lang]++
	}
	fmt.Printf("\nlocalization: %d instances from %d repositories %v\n", len(corpus), len(repos), langs)
	fmt.Printf("%-10s %7s %7s %7s %7s %9s %9s\n", "system", "listed", "top10", "top20", "shown", "tokens", "p50 time")
	for _, s := range systems {
		reportSystem(b, corpus, s, res[s])
	}
	reportLangs(corpus, systems, res)
	var worst time.Duration
	var worstID string
	for id, d := range builds {
		if d > worst {
			worst, worstID = d, id
		}
	}
	fmt.Printf("index build: slowest %s (%d files) %s\n", worstID, sizes[worstID], worst.Round(time.Millisecond))
}

func reportSystem(b *testing.B, corpus []instance, s string, rs []result) {
	var l, t10, t20, sh float64
	var toks []int
	var times []time.Duration
	for i, in := range corpus {
		r := rs[i]
		l += recall(in.Files, r.listed, 0)
		t10 += recall(in.Files, r.listed, 10)
		t20 += recall(in.Files, r.listed, 20)
		sh += recall(in.Files, r.shown, 0)
		toks = append(toks, r.tokens)
		times = append(times, r.took)
		if s == "context" && testing.Verbose() && recall(in.Files, r.shown, 0) < 1 {
			fmt.Printf("  miss %s: want %v\n", in.ID, in.Files)
		}
	}
	n := float64(len(corpus))
	sort.Ints(toks)
	sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
	fmt.Printf("%-10s %7.2f %7.2f %7.2f %7.2f %9d %9s\n", s, l/n, t10/n, t20/n, sh/n, toks[len(toks)/2], times[len(times)/2].Round(time.Millisecond))
	b.ReportMetric(sh/n, s+"_recall_shown")
}

// reportLangs prints each language's shown recall per system: the issue's
// target holds per language, and a language's misses hide in the average.
func reportLangs(corpus []instance, systems []string, res map[string][]result) {
	byLang := map[string][]int{}
	for i, in := range corpus {
		byLang[in.Lang] = append(byLang[in.Lang], i)
	}
	langs := make([]string, 0, len(byLang))
	for l := range byLang {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	fmt.Printf("shown recall by language (instances):")
	for _, s := range systems {
		fmt.Printf(" %9s", s)
	}
	fmt.Println()
	for _, l := range langs {
		fmt.Printf("  %-12s (%3d)                  ", l, len(byLang[l]))
		for _, s := range systems {
			var sh float64
			for _, i := range byLang[l] {
				sh += recall(corpus[i].Files, res[s][i].shown, 0)
			}
			fmt.Printf(" %9.2f", sh/float64(len(byLang[l])))
		}
		fmt.Println()
	}
}
