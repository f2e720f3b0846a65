package dashboard

import (
	"context"
	"slices"
	"sync"
	"testing"
)

const repo = "acme/calc"

// The dashboard is created once, edited in place, and an unchanged body
// is not sent again; someone else's edit is written over.
func TestWriteCreatesOnceEditsInPlace(t *testing.T) {
	b, _ := testBoard(t)
	api := newFakeIssues()
	ctx := context.Background()
	for _, body := range []string{Marker + "\none", Marker + "\none", Marker + "\ntwo"} {
		if err := b.write(ctx, api, repo, body, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.write(ctx, api, repo, Marker+"\ntwo", true); err != nil {
		t.Fatal(err)
	}
	want := []string{"LIST", "CREATE #1", "EDIT #1", "EDIT #1"}
	if got := api.callLog(); !slices.Equal(got, want) {
		t.Fatalf("calls = %v, want %v (an unchanged body is not re-sent; a rewrite is)", got, want)
	}
}

// Two workers racing on a repository without a dashboard create one.
func TestRacingWritersCreateOne(t *testing.T) {
	b, _ := testBoard(t)
	other := *b
	api := newFakeIssues()
	var wg sync.WaitGroup
	for i, board := range []*Board{b, &other, b, &other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := board.write(context.Background(), api, repo, Marker+"\nstate "+string(rune('a'+i)), false); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := api.open(); len(got) != 1 {
		t.Fatalf("open dashboards %v after a race, want one (calls %v)", got, api.callLog())
	}
}

// After a Redis loss the dashboard is found again by its author and marker,
// never by the marker alone, and of two the oldest is kept.
func TestFoundAgainAfterRedisLoss(t *testing.T) {
	b, rdb := testBoard(t)
	api := newFakeIssues()
	ctx := context.Background()
	fake := api.add("mallory", Title, Marker+"\nlooks like one")
	if err := b.write(ctx, api, repo, Marker+"\nfirst", false); err != nil {
		t.Fatal(err)
	}
	first := api.open()
	dup := api.add(bot, Title, Marker+"\na second one, from a lost lock")
	rdb.FlushDB(ctx)
	if err := b.write(ctx, api, repo, Marker+"\nafter the loss", false); err != nil {
		t.Fatal(err)
	}
	if got := api.open(); !slices.Equal(got, first) || slices.Contains(got, fake) {
		t.Fatalf("open dashboards %v, want %v only (mallory's #%d is not Warden's)", got, first, fake)
	}
	if api.issues[dup].GetState() != "closed" || api.issues[first[0]].GetBody() != Marker+"\nafter the loss" {
		t.Fatalf("duplicate #%d %s, kept #%d body %q", dup, api.issues[dup].GetState(), first[0], api.issues[first[0]].GetBody())
	}
	if api.issues[fake].GetState() != "open" || api.issues[fake].GetBody() != Marker+"\nlooks like one" {
		t.Fatal("mallory's issue was touched")
	}
}

// A dashboard deleted on GitHub (404 on edit) is replaced.
func TestGoneDashboardReplaced(t *testing.T) {
	b, _ := testBoard(t)
	api := newFakeIssues()
	ctx := context.Background()
	if err := b.write(ctx, api, repo, Marker+"\none", false); err != nil {
		t.Fatal(err)
	}
	delete(api.issues, 1)
	if err := b.write(ctx, api, repo, Marker+"\ntwo", false); err != nil {
		t.Fatal(err)
	}
	if got := api.open(); len(got) != 1 || got[0] == 1 {
		t.Fatalf("open dashboards %v, want one new", got)
	}
}
