// Command mutants proves that tests can fail: it plants each named bug of a
// mutant file in a copy of the tracked tree, runs the tests that should
// catch it there, and reports every bug the tests let through.
//
//	go run ./test/mutants [-timeout 15m] FILE [name ...]
//
// A mutant file is a list of entries:
//
//	=== short-name: what guard the planted bug removes
//	file: path/from/repo/root.go
//	test: ./pkg/path -run 'TestA|TestB'
//	--- find
//	exact whole lines, occurring exactly once in the file
//	--- replace
//	the replacement lines (may be empty)
//
// Lines starting with "#" between entries are comments. The copy is made
// once; each mutant is applied to it and undone before the next, so the
// checkout itself is never touched. A mutant whose find text is not in its
// file exactly once, or whose tree no longer builds, is an error, not a
// catch: a stale entry must not pass as a guard proven.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

func main() {
	timeout := flag.Duration("timeout", 15*time.Minute, "go test -timeout for each mutant")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./test/mutants [-timeout D] FILE [name ...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Args()[1:], *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

func run(file string, only []string, timeout time.Duration) error {
	text, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read mutant file: %w", err)
	}
	all, err := parse(string(text))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	ms, err := pick(all, only)
	if err != nil {
		return err
	}
	dir, err := copyTree()
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var failed []string
	for _, m := range ms {
		r := try(dir, m, timeout)
		fmt.Printf("%-8s %-40s %6.1fs  %s\n", r.verdict, m.Name, r.took.Seconds(), r.detail)
		if r.verdict != caught {
			failed = append(failed, m.Name+" ("+r.verdict+")")
		}
	}
	fmt.Printf("mutants: %d of %d caught\n", len(ms)-len(failed), len(ms))
	if len(failed) > 0 {
		return fmt.Errorf("not caught: %s", strings.Join(failed, ", "))
	}
	return nil
}

// pick keeps the named mutants, in the file's order; none named is all.
func pick(all []mutant, only []string) ([]mutant, error) {
	if len(only) == 0 {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range only {
		want[n] = true
	}
	var out []mutant
	for _, m := range all {
		if want[m.Name] {
			out = append(out, m)
			delete(want, m.Name)
		}
	}
	for n := range want {
		return nil, fmt.Errorf("no mutant named %q", n)
	}
	return out, nil
}
