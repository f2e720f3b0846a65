package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// AgentTurn is one call of an agent CLI (Claude Code over Anthropic
// Messages streaming, Codex over OpenAI Responses streaming), reduced to
// what a script needs: how many tool results came back so far and the last.
type AgentTurn struct {
	API    string // anthropic or responses
	Turn   int    // 0 on the first call, +1 per tool result sent back
	Dir    string // the CLI's working directory, when its prompt says
	Result string // the last tool result
	Prompt string // the task prompt (first user text)
}

// AgentStep is the scripted answer to a turn: one tool call (Read, Edit or
// Run), or the final Text. Hang holds the stream open after its first event
// (a model that stopped answering). Tokens overrides the input tokens billed.
type AgentStep struct {
	Read   string // a path relative to Dir
	Edit   *EditStep
	Run    string // a shell command
	Text   string
	Hang   time.Duration
	Tokens int
}

// EditStep replaces Old by New in Path (relative to Dir).
type EditStep struct{ Path, Old, New string }

// Agent scripts the agent CLIs' calls.
func (s *Server) Agent(fn func(AgentTurn) AgentStep) { s.mu.Lock(); s.agent = fn; s.mu.Unlock() }

func (s *Server) agentStep(req Request, turn AgentTurn) AgentStep {
	s.mu.Lock()
	req.Received = time.Now()
	s.reqs = append(s.reqs, req)
	fn := s.agent
	s.mu.Unlock()
	if fn == nil {
		return AgentStep{Text: "I cannot help with that."}
	}
	return fn(turn)
}

var workDir = regexp.MustCompile(`(?i)working directory:\s*(\S+)|<cwd>([^<]+)</cwd>`)

func dirOf(texts ...string) string {
	for _, t := range texts {
		if m := workDir.FindStringSubmatch(t); m != nil {
			return strings.TrimSpace(m[1] + m[2])
		}
	}
	return ""
}

// sse writes one server-sent event and flushes it.
func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func hang(r *http.Request, d time.Duration) {
	select {
	case <-time.After(d):
	case <-r.Context().Done():
	}
}

func keyOf(r *http.Request) string {
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return b
	}
	return r.Header.Get("X-Api-Key")
}

func (st AgentStep) inTokens(body []byte) int {
	if st.Tokens > 0 {
		return st.Tokens
	}
	return len(body) / 4
}

func (st AgentStep) shell(dir string) string {
	switch {
	case st.Read != "":
		return "cat " + st.Read
	case st.Edit != nil:
		return "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: " + st.Edit.Path + "\n@@\n" +
			prefixLines("-", st.Edit.Old) + prefixLines("+", st.Edit.New) + "*** End Patch\nEOF"
	}
	return st.Run
}

func prefixLines(p, s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString(p + l + "\n")
	}
	return b.String()
}
