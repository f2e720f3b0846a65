package agent

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
)

type anthropicProvider struct {
	cfg    Config
	client anthropic.Client
}

func newAnthropic(cfg Config) *anthropicProvider {
	opts := []aoption.RequestOption{aoption.WithAPIKey(cfg.APIKey), aoption.WithMaxRetries(0), aoption.WithRequestTimeout(cfg.Timeout)}
	if cfg.BaseURL != "" {
		opts = append(opts, aoption.WithBaseURL(cfg.BaseURL))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, aoption.WithHTTPClient(cfg.HTTPClient))
	}
	return &anthropicProvider{cfg: cfg, client: anthropic.NewClient(opts...)}
}

// Chat calls the Messages API once, non-streaming.
func (a *anthropicProvider) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	maxTokens := int64(req.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = 8192
	}
	params := anthropic.MessageNewParams{Model: anthropic.Model(a.cfg.Model), MaxTokens: maxTokens}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			params.System = append(params.System, anthropic.TextBlockParam{Text: m.Content})
		case "assistant":
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(anthropic.NewTextBlock(m.Content)))
		default:
			params.Messages = append(params.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(m.Content)))
		}
	}
	var trace httpTrace
	msg, err := a.client.Messages.New(ctx, params, aoption.WithMiddleware(trace.middleware))
	if err != nil {
		var ae *anthropic.Error
		if errors.As(err, &ae) {
			return ChatResponse{}, apiError(req.Stage, ae.StatusCode, header(ae.Response), ae.Error(), a.cfg.APIKey)
		}
		return ChatResponse{}, trace.sdkError(req.Stage, err, a.cfg.APIKey)
	}
	var text strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	if text.Len() == 0 {
		return ChatResponse{}, contractError(req.Stage, "the model returned an empty reply")
	}
	in, out := int(msg.Usage.InputTokens), int(msg.Usage.OutputTokens)
	return ChatResponse{Text: text.String(), Usage: Usage{in, out, a.cfg.cost(in, out)}}, nil
}

func header(r *http.Response) http.Header {
	if r == nil {
		return nil
	}
	return r.Header
}
