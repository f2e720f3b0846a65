package webhooks

import (
	"errors"
	"strings"
	"testing"
)

// GitHub's documented test vector ("Validating webhook deliveries").
func TestVerifyGitHubVector(t *testing.T) {
	secret := []byte("It's a Secret to Everybody")
	body := []byte("Hello, World!")
	good := "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
	if err := Verify(secret, good, body); err != nil {
		t.Fatalf("documented vector rejected: %v", err)
	}
	bad := []struct{ name, secret, header, body string }{
		{"tampered body", string(secret), good, "Hello, World?"},
		{"wrong secret", "other", good, string(body)},
		{"empty secret", "", good, string(body)},
		{"missing header", string(secret), "", string(body)},
		{"sha1 header", string(secret), "sha1=7d38cdd689735b008b3c702edd92eea23791c5f6", string(body)},
		{"not hex", string(secret), "sha256=zz", string(body)},
		{"short digest", string(secret), "sha256=757107ea", string(body)},
		{"upper prefix", string(secret), "SHA256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17", string(body)},
	}
	for _, tc := range bad {
		if err := Verify([]byte(tc.secret), tc.header, []byte(tc.body)); !errors.Is(err, ErrSignature) {
			t.Errorf("%s: got %v, want ErrSignature", tc.name, err)
		}
	}
}

// Bodies in flight share one budget, and one client address holds at most
// half of it: a caller cannot hold Warden's memory for GitHub's deliveries.
func TestBudgetBoundsBodiesInFlight(t *testing.T) {
	b := NewBudget(100)
	if !b.take("a", 50) || b.take("a", 1) {
		t.Fatal("one client may hold exactly half the budget")
	}
	if !b.take("b", 50) || b.take("c", 1) {
		t.Fatal("the budget's total is not enforced")
	}
	b.give("a", 50)
	if !b.take("c", 50) {
		t.Fatal("given-back bytes are not reusable")
	}
	if _, _, err := readBody(strings.NewReader(strings.Repeat("x", 200)), nil, 200, NewBudget(100), "z"); err != errBusy {
		t.Fatalf("a body over the client's share read with %v, want errBusy", err)
	}
}
