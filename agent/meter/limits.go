package meter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// generationPaths are the only paths the proxy forwards, per API: the model
// calls the agent CLIs make (Claude Code: Messages; Codex: Responses; an
// OpenAI-compatible client: chat completions). Anything else — token
// counting, files, batches, models — would use the real key for a reply the
// ledger cannot price.
var generationPaths = map[string][]string{
	"anthropic": {"/v1/messages"},
	"openai":    {"/responses", "/v1/responses", "/chat/completions", "/v1/chat/completions"},
}

// allowedCall reports whether r is a generation call of api.
func allowedCall(api string, r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	for _, p := range generationPaths[api] {
		if r.URL.Path == p {
			return true
		}
	}
	return false
}

// maxRequestBody bounds what the proxy reads of a request to price it.
const maxRequestBody = 32 << 20

// defaultMaxOutput is the output bound of a request that names none.
const defaultMaxOutput = 32000

// callBounds is what a request may cost at most: its model, its input as
// tokens (bytes/2: text and code tokenize at three or more bytes a token,
// so this errs high) and its output bound (max_tokens and its OpenAI
// spellings).
type callBounds struct {
	Model         string
	Input, Output int
}

// readBounds reads r's body (restoring it for forwarding) and its bounds.
func readBounds(r *http.Request) (callBounds, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil {
		return callBounds{}, fmt.Errorf("read request: %w", err)
	}
	if len(body) > maxRequestBody {
		return callBounds{}, fmt.Errorf("request larger than %d bytes", maxRequestBody)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	var f struct {
		Model               string `json:"model"`
		MaxTokens           int    `json:"max_tokens"`
		MaxCompletionTokens int    `json:"max_completion_tokens"`
		MaxOutputTokens     int    `json:"max_output_tokens"`
	}
	_ = json.Unmarshal(body, &f) // a body that is not JSON gets the defaults
	out := max(f.MaxTokens, f.MaxCompletionTokens, f.MaxOutputTokens)
	if out <= 0 {
		out = defaultMaxOutput
	}
	return callBounds{Model: strings.TrimSpace(f.Model), Input: len(body)/2 + 1, Output: out}, nil
}

// identity reports whether a reply's body is readable as sent: no
// Content-Encoding the tap cannot read.
func identity(h http.Header) bool {
	ce := strings.TrimSpace(strings.ToLower(h.Get("Content-Encoding")))
	return ce == "" || ce == "identity"
}
