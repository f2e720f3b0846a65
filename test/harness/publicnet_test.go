package harness

import (
	"io"
	"net/http"
	"testing"
)

// The "public" server answers from its own namespace, reached through the veth.
func TestPublicServerAnswers(t *testing.T) {
	srv := PublicServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "public") }))
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "public" {
		t.Fatalf("body %q", b)
	}
	t.Log(srv.URL)
}
