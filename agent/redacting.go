package agent

import "context"

// Redacting wraps p so that no message reaches the model provider before
// redact has scrubbed it: test output, diffs and issue text can all carry a
// secret a repository command printed.
func Redacting(p Provider, redact func(string) string) Provider {
	if redact == nil {
		return p
	}
	return redactingProvider{p, redact}
}

type redactingProvider struct {
	Provider
	redact func(string) string
}

func (r redactingProvider) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	msgs := make([]Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = Message{Role: m.Role, Content: r.redact(m.Content)}
	}
	req.Messages = msgs
	return r.Provider.Chat(ctx, req)
}
