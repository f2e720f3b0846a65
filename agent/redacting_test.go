package agent

import (
	"context"
	"strings"
	"testing"
)

type recordingProvider struct{ got ChatRequest }

func (p *recordingProvider) Chat(_ context.Context, req ChatRequest) (ChatResponse, error) {
	p.got = req
	return ChatResponse{}, nil
}

func TestRedactingScrubsEveryMessage(t *testing.T) {
	rec := &recordingProvider{}
	p := Redacting(rec, func(s string) string { return strings.ReplaceAll(s, "s3cr3t", "[REDACTED]") })
	in := ChatRequest{Messages: []Message{{Role: "system", Content: "a s3cr3t"}, {Role: "user", Content: "test output: s3cr3t"}}}
	if _, err := p.Chat(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	for _, m := range rec.got.Messages {
		if strings.Contains(m.Content, "s3cr3t") {
			t.Fatalf("sent %q", m.Content)
		}
	}
	if in.Messages[0].Content != "a s3cr3t" {
		t.Fatal("the caller's request was changed")
	}
}
