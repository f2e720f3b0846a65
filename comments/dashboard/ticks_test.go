package dashboard

import (
	"slices"
	"testing"
)

func TestTicked(t *testing.T) {
	before := Marker + "\n" + RetryLine(3) + " — why\n" + RetryLine(12) + "\n- [x] <!-- warden:retry:40 --> retry #40\n"
	after := Marker + "\n- [x] <!-- warden:retry:3 --> retry #3 — why\n" + RetryLine(12) + "\n- [x] <!-- warden:retry:40 --> retry #40\n" +
		"  * [X] <!-- warden:retry:5 --> retry #5\n" +
		"text - [x] <!-- warden:retry:6 --> not a box\n- [x] <!-- warden:retry:0 --> zero\n"
	if got := Ticked(before, after); !slices.Equal(got, []int{3, 5}) {
		t.Fatalf("Ticked = %v, want [3 5] (40 was ticked before; 6 is not a box; 0 no issue)", got)
	}
	if got := Ticked(after, after); len(got) != 0 {
		t.Fatalf("an edit that ticks nothing new: %v", got)
	}
}

func TestIsDashboard(t *testing.T) {
	if !IsDashboard(Title, Marker+"\nbody") || IsDashboard("Warden dashboard!", Marker) || IsDashboard(Title, "x "+Marker) {
		t.Fatal("IsDashboard must want the exact title and the marker first")
	}
}
