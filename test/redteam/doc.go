// Package redteam holds Warden's adversarial tests: one or more hostile tests
// per row of the threat model in docs/operations.md, each driving the real
// binary (or the real package boundary) as an attacker who controls the model,
// every file in the worktree, non-writers' text, or the network would. Each
// test names the threat-model row it proves and was seen to fail with its
// protection removed.
//
// Files are grouped by topic (sandbox_test.go, git_test.go, egress_test.go,
// markers_test.go, port_test.go …); helpers in a file carry its topic as a
// prefix so that files added in parallel never collide.
package redteam
