package fakemodel

import (
	"encoding/json"
	"net/http"
	"path/filepath"
)

type anthropicBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
}

// anthropicStream answers a streamed Messages call (Claude Code) with the
// agent script's step: a tool_use block or text.
func (s *Server) anthropicStream(w http.ResponseWriter, r *http.Request, raw []byte, model string, msgs []struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}) {
	turn := AgentTurn{API: "anthropic"}
	for i, m := range msgs {
		var blocks []anthropicBlock
		if json.Unmarshal(m.Content, &blocks) != nil {
			var s string
			_ = json.Unmarshal(m.Content, &s)
			blocks = []anthropicBlock{{Type: "text", Text: s}}
		}
		for _, b := range blocks {
			switch {
			case b.Type == "tool_result":
				turn.Turn++
				turn.Result = text(b.Content)
			case b.Type == "text" && i == 0:
				if d := dirOf(b.Text); d != "" && turn.Dir == "" {
					turn.Dir = d
				}
				turn.Prompt = b.Text // the task prompt comes after the reminders
			}
		}
	}
	st := s.agentStep(Request{API: "anthropic", Model: model, Stage: "agent", Key: keyOf(r), Prompt: turn.Prompt}, turn)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": []any{}, "stop_reason": nil,
		"usage": map[string]any{"input_tokens": st.inTokens(raw), "output_tokens": 1}}})
	if st.Hang > 0 {
		hang(r, st.Hang)
		return
	}
	stop := "end_turn"
	var block map[string]any
	var input map[string]any
	switch {
	case st.Read != "":
		block, input = toolUse("Read"), map[string]any{"file_path": filepath.Join(turn.Dir, st.Read)}
	case st.Edit != nil:
		block, input = toolUse("Edit"), map[string]any{"file_path": filepath.Join(turn.Dir, st.Edit.Path), "old_string": st.Edit.Old, "new_string": st.Edit.New}
	case st.Run != "":
		block, input = toolUse("Bash"), map[string]any{"command": st.Run, "description": "run"}
	}
	if block != nil {
		stop = "tool_use"
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": block})
		b, _ := json.Marshal(input)
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(b)}})
	} else {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": st.Text}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

var toolIDs = 0

func toolUse(name string) map[string]any {
	toolIDs++
	return map[string]any{"type": "tool_use", "id": "toolu_" + name + string(rune('a'+toolIDs%26)), "name": name, "input": map[string]any{}}
}
