package agent

import (
	"context"
	"errors"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

type openAI struct {
	cfg    Config
	client openai.Client
}

func newOpenAI(cfg Config) *openAI {
	opts := []option.RequestOption{option.WithAPIKey(cfg.APIKey), option.WithMaxRetries(0), option.WithRequestTimeout(cfg.Timeout)}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &openAI{cfg: cfg, client: openai.NewClient(opts...)}
}

// Chat calls /chat/completions once, non-streaming; retries are the supervisor's.
func (o *openAI) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	params := openai.ChatCompletionNewParams{Model: o.cfg.Model}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			params.Messages = append(params.Messages, openai.SystemMessage(m.Content))
		case "assistant":
			params.Messages = append(params.Messages, openai.AssistantMessage(m.Content))
		default:
			params.Messages = append(params.Messages, openai.UserMessage(m.Content))
		}
	}
	if req.MaxTokens > 0 {
		params.MaxTokens = openai.Int(int64(req.MaxTokens))
	}
	var trace httpTrace
	resp, err := o.client.Chat.Completions.New(ctx, params, option.WithMiddleware(trace.middleware))
	if err != nil {
		var ae *openai.Error
		if errors.As(err, &ae) {
			msg := ae.Message + " " + ae.Code
			if ae.Message == "" { // not the API's error envelope: quote the body
				msg = trace.body
			}
			return ChatResponse{}, apiError(req.Stage, ae.StatusCode, header(ae.Response), msg, o.cfg.APIKey)
		}
		return ChatResponse{}, trace.sdkError(req.Stage, err, o.cfg.APIKey)
	}
	if len(resp.Choices) == 0 || resp.Choices[0].Message.Content == "" {
		return ChatResponse{}, contractError(req.Stage, "the model returned an empty reply")
	}
	in, out := int(resp.Usage.PromptTokens), int(resp.Usage.CompletionTokens)
	return ChatResponse{Text: resp.Choices[0].Message.Content, Usage: Usage{in, out, o.cfg.cost(in, out)}}, nil
}
