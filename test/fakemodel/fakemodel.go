// Package fakemodel is a scripted model server speaking the OpenAI chat
// completions and Anthropic Messages wire formats, with fault injection.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Request is one call as the server saw it.
type Request struct {
	API      string // openai or anthropic
	Model    string
	Messages []Message
	Prompt   string    // the last user message
	Stage    string    // plan, implement, fix, review, or "" (repair turns)
	Received time.Time // when the request's body was read
	Replied  time.Time // when the reply was written (zero for faults)
	Key      string    // the credential the caller sent (x-api-key or bearer)
}

// Message is one turn.
type Message struct{ Role, Content string }

// Reply is what the server answers: text, or a fault.
type Reply struct {
	Text       string
	Status     int           // an HTTP error status (429, 500, 529 …)
	RetryAfter string        // Retry-After header with Status
	Hang       time.Duration // wait this long (or until the client leaves) first
	Garbage    bool          // a body that is not JSON
	Truncated  bool          // JSON cut in the middle
	Empty      bool          // a well-formed reply with no content
}

// Server is the fake.
type Server struct {
	srv    *httptest.Server
	mu     sync.Mutex
	script func(Request) Reply
	queue  []Reply
	reqs   []Request
	agent  func(AgentTurn) AgentStep
}

// New starts a server; until scripted it answers a polite refusal.
func New() *Server {
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", s.openai)
	mux.HandleFunc("/chat/completions", s.openai)
	mux.HandleFunc("/v1/messages", s.anthropic)
	mux.HandleFunc("/v1/responses", s.responses)
	mux.HandleFunc("/responses", s.responses)
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is the server's base URL (append /v1 for OpenAI clients).
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server.
func (s *Server) Close() { s.srv.CloseClientConnections(); s.srv.Close() }

// Script answers every call with fn, after any queued replies.
func (s *Server) Script(fn func(Request) Reply) { s.mu.Lock(); s.script = fn; s.mu.Unlock() }

// Enqueue queues replies answered first, in order.
func (s *Server) Enqueue(r ...Reply) { s.mu.Lock(); s.queue = append(s.queue, r...); s.mu.Unlock() }

// Requests returns every call so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// RequestsFor returns the calls so far for one stage ("plan", "implement", …).
func (s *Server) RequestsFor(stage string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Stage == stage {
			out = append(out, r)
		}
	}
	return out
}

// StageOf tells prompts apart the way CONTRACT §10 says any agent can.
func StageOf(prompt string) string {
	switch {
	case strings.Contains(prompt, "achieved|partial|not_achieved|hollow"):
		return "review"
	case strings.Contains(prompt, "<<<<<<< SEARCH") && strings.Contains(strings.ToLower(prompt), "test output"):
		return "fix"
	case strings.Contains(prompt, "<<<<<<< SEARCH"):
		return "implement"
	case strings.Contains(prompt, `"decision"`):
		return "plan"
	}
	return ""
}

// next records req and picks its reply; the index names it for replied.
func (s *Server) next(req Request) (Reply, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.Received = time.Now()
	s.reqs = append(s.reqs, req)
	i := len(s.reqs) - 1
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		return r, i
	}
	if s.script != nil {
		return s.script(req), i
	}
	return Reply{Text: "I cannot help with that."}, i
}

// replied stamps request i's reply time.
func (s *Server) replied(i int) {
	s.mu.Lock()
	s.reqs[i].Replied = time.Now()
	s.mu.Unlock()
}

// fault writes a fault reply and reports whether it did.
func fault(w http.ResponseWriter, r *http.Request, rep Reply) bool {
	if rep.Hang > 0 {
		select {
		case <-time.After(rep.Hang):
		case <-r.Context().Done():
			return true
		}
	}
	switch {
	case rep.Status != 0:
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		fmt.Fprintf(w, `{"error":{"message":"scripted failure %d","type":"server_error","code":null},"type":"error"}`, rep.Status)
	case rep.Garbage:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("<html>502 Bad Gateway</html>"))
	case rep.Truncated:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis`))
	default:
		return false
	}
	return true
}

func (s *Server) openai(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, 400)
		return
	}
	req := Request{API: "openai", Model: body.Model, Key: keyOf(r)}
	for _, m := range body.Messages {
		req.Messages = append(req.Messages, Message{m.Role, text(m.Content)})
	}
	req = finish(req)
	rep, i := s.next(req)
	if fault(w, r, rep) {
		return
	}
	defer s.replied(i)
	content := rep.Text
	if rep.Empty {
		content = ""
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": body.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
		"usage":   map[string]any{"prompt_tokens": len(req.Prompt) / 4, "completion_tokens": len(content) / 4, "total_tokens": (len(req.Prompt) + len(content)) / 4},
	})
}

func (s *Server) anthropic(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, 400)
		return
	}
	if body.Stream { // an agent CLI: Warden's own calls are never streamed
		s.anthropicStream(w, r, raw, body.Model, body.Messages)
		return
	}
	req := Request{API: "anthropic", Model: body.Model, Key: keyOf(r)}
	for _, m := range body.Messages {
		req.Messages = append(req.Messages, Message{m.Role, text(m.Content)})
	}
	req = finish(req)
	rep, i := s.next(req)
	if fault(w, r, rep) {
		return
	}
	defer s.replied(i)
	content := []any{map[string]any{"type": "text", "text": rep.Text}}
	if rep.Empty {
		content = []any{}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": body.Model, "content": content,
		"stop_reason": "end_turn", "usage": map[string]any{"input_tokens": len(req.Prompt) / 4, "output_tokens": len(rep.Text) / 4},
	})
}

func finish(req Request) Request {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			req.Prompt = req.Messages[i].Content
			break
		}
	}
	req.Stage = StageOf(req.Prompt)
	return req
}

// text reads a message content that is a string or a list of text blocks.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}
