package localization

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// onlyLangs keeps the instances whose language LOCALIZATION_LANGS names
// (comma-separated, e.g. "ts,java"); unset keeps them all. It lets a machine
// that holds the mirrors of some repositories only measure those languages
// without weakening the full run, which still fails on any missing tree.
func onlyLangs(corpus []instance) []instance {
	env := strings.TrimSpace(os.Getenv("LOCALIZATION_LANGS"))
	if env == "" {
		return corpus
	}
	keep := map[string]bool{}
	for _, l := range strings.Split(env, ",") {
		keep[strings.TrimSpace(l)] = true
	}
	var out []instance
	for _, in := range corpus {
		if keep[in.Lang] {
			out = append(out, in)
		}
	}
	return out
}

// reportByLang prints each system's shown recall per language (issue #30
// asks for the figure per language, since the overall one is mostly Go) and
// reports it as a metric named <system>_recall_shown_<lang>.
func reportByLang(b *testing.B, corpus []instance, systems []string, res map[string][]result) {
	idx := map[string][]int{}
	for i, in := range corpus {
		idx[in.Lang] = append(idx[in.Lang], i)
	}
	langs := make([]string, 0, len(idx))
	for l := range idx {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	fmt.Printf("%-10s", "shown by")
	for _, l := range langs {
		fmt.Printf(" %12s", fmt.Sprintf("%s (%d)", l, len(idx[l])))
	}
	fmt.Println()
	for _, s := range systems {
		fmt.Printf("%-10s", s)
		for _, l := range langs {
			var sum float64
			for _, i := range idx[l] {
				sum += recall(corpus[i].Files, res[s][i].shown, 0)
			}
			r := sum / float64(len(idx[l]))
			fmt.Printf(" %12.2f", r)
			b.ReportMetric(r, s+"_recall_shown_"+l)
		}
		fmt.Println()
	}
}
