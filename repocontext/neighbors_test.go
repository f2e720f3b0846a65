package repocontext

import (
	"fmt"
	"testing"
)

// The file using what the best file defines (the encoder that runs the
// filter the issue is about) is ranked near it, though it shares none of
// the words.
func TestUserOfWhatTheBestFileDefinesRanksNear(t *testing.T) {
	files := map[string]string{
		"logging/filters.go": "package logging\n\n// PatternReplacer is the regexp filter of a log field.\ntype PatternReplacer struct{ Regexp string }\n\n// Filter applies the regexp filter to the field.\nfunc (f PatternReplacer) Filter(field string) string { return field }\n",
		"logging/encoder.go": "package logging\n\ntype lineWriter struct{ reps map[string]PatternReplacer }\n\nfunc (w lineWriter) put(k, v string) string { return w.reps[k].Apply(v) }\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("misc/m%02d.go", i)] = fmt.Sprintf("package misc\n\n// M%02d writes a log line.\nfunc M%02d() {}\n", i, i)
	}
	_, x := repoFrom(t, files)
	q := NewQuery("Unable to use multiple regexp filters in log filter", "only the second regexp substitution is applied to the field")
	if got := rankOf(x, q, "logging/filters.go"); got != 1 {
		t.Fatalf("logging/filters.go at %d, want 1 (ranking %v)", got, paths(x, Rank(x, q)))
	}
	if got := rankOf(x, q, "logging/encoder.go"); got == 0 || got > 3 {
		t.Errorf("logging/encoder.go at %d, want 2 or 3 (ranking %v)", got, paths(x, Rank(x, q)))
	}
}

// A best file below the third still leads to what it uses: the
// fix's second file hangs off whichever of the best files it belongs to.
func TestDefinerLinkedFromABestFileBelowTheThird(t *testing.T) {
	files := map[string]string{
		"util/budget.go": "package util\n\n// ParseBackoffList reads a duration list.\nfunc ParseBackoffList(s string) []int { return nil }\n",
	}
	// Five files share the words, less and less; the fifth, ranked 4th or 5th, uses the helper.
	words := []string{"retry timeout upstream proxy", "retry timeout upstream", "retry timeout", "retry", "upstream"}
	for i, w := range words {
		body := fmt.Sprintf("package proxy\n\n// P%d: %s.\nfunc P%d() {}\n", i, w, i)
		if i == 4 {
			body += "\nfunc use() { _ = util.ParseBackoffList(\"1s\") }\n"
		}
		files[fmt.Sprintf("proxy/p%d.go", i)] = body
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("misc/m%02d.go", i)] = fmt.Sprintf("package misc\n\nfunc M%02d() {}\n", i)
	}
	_, x := repoFrom(t, files)
	q := NewQuery("retry timeout ignored by the upstream proxy", "the proxy retries an upstream past its timeout")
	if got := rankOf(x, q, "proxy/p4.go"); got < 4 {
		t.Fatalf("proxy/p4.go at %d, want 4th or 5th (ranking %v)", got, paths(x, Rank(x, q)))
	}
	if got := rankOf(x, q, "util/budget.go"); got == 0 {
		t.Errorf("util/budget.go not ranked, want it linked from proxy/p4.go (ranking %v)", paths(x, Rank(x, q)))
	}
}

// A file a trace names with its line scores far above any file the
// issue's words rank; a share of that whole score put every file it
// imports above the trace's other frames, where the fix often is.
func TestTraceTopFileDoesNotLiftItsImportsAboveTheOtherFrames(t *testing.T) {
	files := map[string]string{
		"query/update_builder.ts": "import { ColumnMeta } from '../meta/ColumnMeta'\nimport { DataSource } from '../data/DataSource'\nimport { QueryRunner } from '../run/QueryRunner'\n\nexport class UpdateBuilder {\n  createUpdateExpression(c: ColumnMeta, d: DataSource, r: QueryRunner) { throw new Error('update values are not defined') }\n}\n",
		"meta/ColumnMeta.ts":      "// ColumnMeta describes an entity's column and its defined values.\nexport class ColumnMeta {}\n",
		"data/DataSource.ts":      "// DataSource saves an entity's defined values.\nexport class DataSource {}\n",
		"run/QueryRunner.ts":      "// QueryRunner runs what is defined, with its values.\nexport class QueryRunner {}\n",
		"persist/executor.ts":     "export function updateSubject(s: object) { return s }\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("misc/m%02d.ts", i)] = fmt.Sprintf("export function m%02d() { return %d }\n", i, i)
	}
	_, x := repoFrom(t, files)
	q := NewQuery("Saving an entity fails when nothing is updated", "```\nError: update values are not defined\n    at UpdateBuilder.createUpdateExpression (node_modules/src/query/update_builder.ts:6:19)\n    at UpdateBuilder.execute (node_modules/src/query/update_builder.ts:6:7)\n    at updateSubject\n```")
	if got := rankOf(x, q, "query/update_builder.ts"); got != 1 {
		t.Fatalf("query/update_builder.ts at %d, want 1 (ranking %v)", got, paths(x, Rank(x, q)))
	}
	if got := rankOf(x, q, "persist/executor.ts"); got != 2 {
		t.Errorf("persist/executor.ts at %d, want 2, above the builder's imports (ranking %v)", got, paths(x, Rank(x, q)))
	}
}

// A helper every best file calls gets the share of one of them, not their
// sum: summed, it outranked the files the words put in the top ten.
func TestHelperOfAllBestFilesDoesNotSumItsShares(t *testing.T) {
	files := map[string]string{
		"util/errtext.go": "package util\n\nfunc FormatErrorText(s string) string { return s }\n",
		"core/target.go":  "package core\n\n// target of a retry.\nfunc Target() {}\n",
	}
	words := []string{"retry timeout upstream proxy", "retry timeout upstream proxy", "retry timeout upstream", "retry timeout upstream"}
	for i, w := range words {
		files[fmt.Sprintf("proxy/p%d.go", i)] = fmt.Sprintf("package proxy\n\n// P%d: %s.\nfunc P%d() { _ = util.FormatErrorText(\"x\") }\n", i, w, i)
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("misc/m%02d.go", i)] = fmt.Sprintf("package misc\n\nfunc M%02d() {}\n", i)
	}
	_, x := repoFrom(t, files)
	q := NewQuery("retry timeout ignored by the upstream proxy", "the proxy retries an upstream past its timeout and target")
	helper, target := rankOf(x, q, "util/errtext.go"), rankOf(x, q, "core/target.go")
	if helper == 0 || target == 0 || helper < target {
		t.Errorf("util/errtext.go at %d, core/target.go at %d: want the helper ranked, below the target (ranking %v)", helper, target, paths(x, Rank(x, q)))
	}
}
