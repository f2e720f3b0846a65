package runner

import (
	"context"
	"slices"
	"testing"

	"github.com/warden-bot/warden/pipeline"
)

// stateChange reads issue acme/app#7 as a run does, sets running, then
// pr-open, and answers the calls the second change made and the labels.
func stateChange(t *testing.T, w *world, before func()) ([]string, []string) {
	t.Helper()
	ctx := context.Background()
	h, err := w.hosts.Host(ctx, "acme/app", 7, 7, "", "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Issue(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.State(ctx, pipeline.StateRunning); err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before()
	}
	n := len(w.gh.Calls())
	if err := h.State(ctx, pipeline.StatePROpen); err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, c := range w.gh.Calls()[n:] {
		calls = append(calls, c.Method+" "+c.Path)
	}
	return calls, w.gh.Labels("acme/app", 7)
}

func wantPROpen(t *testing.T, labels []string) {
	t.Helper()
	if !slices.Equal(labels, []string{"warden:maintenance", "warden:pr-open"}) {
		t.Fatalf("labels %q, want the trigger and pr-open alone", labels)
	}
}

// With the labels' node ids from the issue read, running → pr-open is one
// GraphQL request: add, then remove, in that order.
func TestStateChangeIsOneGraphQLRequest(t *testing.T) {
	w := newWorld(t)
	w.gh.CreateLabels("acme/app", "warden:running", "warden:pr-open")
	calls, labels := stateChange(t, w, nil)
	if !slices.Equal(calls, []string{"POST /graphql"}) {
		t.Fatalf("calls %q, want one GraphQL request", calls)
	}
	wantPROpen(t, labels)
}

// Every case the mutation cannot serve goes over REST's add and remove,
// and the issue ends with exactly one state.
func TestStateChangeFallsBackToREST(t *testing.T) {
	rest := []string{"POST /repos/acme/app/issues/7/labels", "DELETE /repos/acme/app/issues/7/labels/warden:running"}
	t.Run("label not yet in the repository", func(t *testing.T) {
		w := newWorld(t)
		calls, labels := stateChange(t, w, nil)
		if !slices.Equal(calls, rest) {
			t.Fatalf("calls %q, want REST's add and remove", calls)
		}
		wantPROpen(t, labels)
	})
	t.Run("mutation fails", func(t *testing.T) {
		w := newWorld(t)
		w.gh.CreateLabels("acme/app", "warden:running", "warden:pr-open")
		calls, labels := stateChange(t, w, func() { w.gh.FailNext("POST", "/graphql", 1, 502, nil, nil) })
		if !slices.Equal(calls, append([]string{"POST /graphql"}, rest...)) {
			t.Fatalf("calls %q, want the failed request then REST's add and remove", calls)
		}
		wantPROpen(t, labels)
	})
	t.Run("issue read over REST", func(t *testing.T) {
		w := newWorld(t)
		w.gh.CreateLabels("acme/app", "warden:running", "warden:pr-open")
		w.gh.FailNext("POST", "/graphql", 1, 502, nil, nil)
		calls, labels := stateChange(t, w, nil)
		if !slices.Equal(calls, rest) {
			t.Fatalf("calls %q, want REST's add and remove (no node ids)", calls)
		}
		wantPROpen(t, labels)
	})
}

// A Bot's GraphQL login has no "[bot]"; the issue's author is spelled as
// REST spells it, since its permission is looked up by that name.
func TestIssueAuthorSpelledAsREST(t *testing.T) {
	w := newWorld(t)
	w.gh.AddIssue("acme/app", 8, "Bump x", "", "dependabot[bot]", "warden:maintenance")
	h, err := w.hosts.Host(context.Background(), "acme/app", 7, 8, "", "main")
	if err != nil {
		t.Fatal(err)
	}
	info, err := h.Issue(context.Background())
	if err != nil || info.Author != "dependabot[bot]" || !info.Open {
		t.Fatalf("issue %+v, %v; want dependabot[bot]'s open issue", info, err)
	}
	if n := w.gh.CountCalls("GET", "/repos/acme/app/issues/8"); n != 0 {
		t.Fatalf("%d REST issue reads, want the GraphQL read alone", n)
	}
}
