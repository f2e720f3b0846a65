package fakemodel

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
)

var callIDs atomic.Int64

// responses answers an OpenAI Responses call (Codex), streamed, with the
// agent script's step: an exec_command function call or a message.
func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body struct {
		Model string `json:"model"`
		Input []struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Output  json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, 400)
		return
	}
	turn := AgentTurn{API: "responses"}
	for _, it := range body.Input {
		switch {
		case it.Type == "function_call_output" || it.Type == "custom_tool_call_output":
			turn.Turn++
			turn.Result = outputText(it.Output)
		case it.Role == "user":
			t := text(it.Content)
			if d := dirOf(t); d != "" && turn.Dir == "" {
				turn.Dir = d
			}
			turn.Prompt = t
		}
	}
	st := s.agentStep(Request{API: "responses", Model: body.Model, Stage: "agent", Key: keyOf(r), Prompt: turn.Prompt}, turn)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	id := "resp_" + strconv.FormatInt(callIDs.Add(1), 10)
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id, "model": body.Model}})
	if st.Hang > 0 {
		hang(r, st.Hang)
		return
	}
	var item map[string]any
	if cmd := st.shell(turn.Dir); cmd != "" {
		args, _ := json.Marshal(map[string]any{"cmd": cmd, "login": false})
		item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": "call_" + id, "name": "exec_command", "arguments": string(args), "status": "completed"}
	} else {
		item = map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": st.Text, "annotations": []any{}}}}
		sse(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": "msg_" + id, "output_index": 0, "content_index": 0, "delta": st.Text})
	}
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	in := st.inTokens(raw)
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": id, "model": body.Model, "status": "completed",
		"usage": map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 20, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + 20}}})
}

// outputText reads a tool output that is a string or a list of text parts.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Output string `json:"output"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Output != "" {
		return o.Output
	}
	return text(raw)
}
