package meter

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
)

// Usage is what one model response said it used.
type Usage struct {
	Model        string
	InputTokens  int
	OutputTokens int
}

// usageFields covers the Anthropic Messages and OpenAI chat completions and
// Responses shapes: usage at the top (a JSON reply, an OpenAI chunk), in
// `message` (Anthropic message_start) or in `response` (Responses events).
type usageFields struct {
	Model    string     `json:"model"`
	Usage    *rawUsage  `json:"usage"`
	Message  *usageHost `json:"message"`
	Response *usageHost `json:"response"`
}

type usageHost struct {
	Model string    `json:"model"`
	Usage *rawUsage `json:"usage"`
}

type rawUsage struct {
	InputTokens   int `json:"input_tokens"`
	CacheCreation int `json:"cache_creation_input_tokens"`
	CacheRead     int `json:"cache_read_input_tokens"`
	OutputTokens  int `json:"output_tokens"`
	PromptTokens  int `json:"prompt_tokens"`
	Completion    int `json:"completion_tokens"`
}

// add folds one JSON object into u. Streams repeat or grow their counts
// (Anthropic's message_delta carries the running output total), so each
// count keeps its largest value rather than a sum.
func (u *Usage) add(obj []byte) {
	var f usageFields
	if json.Unmarshal(obj, &f) != nil {
		return
	}
	take := func(model string, r *rawUsage) {
		if model != "" && u.Model == "" {
			u.Model = model
		}
		if r == nil {
			return
		}
		u.InputTokens = max(u.InputTokens, r.InputTokens+r.CacheCreation+r.CacheRead, r.PromptTokens)
		u.OutputTokens = max(u.OutputTokens, r.OutputTokens, r.Completion)
	}
	take(f.Model, f.Usage)
	if f.Message != nil {
		take(f.Message.Model, f.Message.Usage)
	}
	if f.Response != nil {
		take(f.Response.Model, f.Response.Usage)
	}
}

// maxJSONBody bounds how much of a non-streamed reply is kept to be read.
const maxJSONBody = 8 << 20

// tap passes a response body through unchanged while reading the usage out
// of it: line by line for server-sent events, whole for a JSON reply. done
// is called once, at EOF or Close, with what was found.
type tap struct {
	rc   io.ReadCloser
	sse  bool
	buf  bytes.Buffer
	u    Usage
	once sync.Once
	done func(Usage)
}

func newTap(rc io.ReadCloser, contentType string, done func(Usage)) *tap {
	return &tap{rc: rc, sse: strings.Contains(contentType, "event-stream"), done: done}
}

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if n > 0 {
		t.feed(p[:n])
	}
	if err == io.EOF {
		t.finish()
	}
	return n, err
}

func (t *tap) Close() error {
	t.finish()
	return t.rc.Close()
}

func (t *tap) feed(p []byte) {
	if !t.sse {
		if t.buf.Len() < maxJSONBody {
			t.buf.Write(p)
		}
		return
	}
	t.buf.Write(p)
	for {
		line, err := t.buf.ReadBytes('\n')
		if err != nil { // an incomplete line waits for the rest
			rest := append([]byte(nil), line...)
			t.buf.Reset()
			t.buf.Write(rest)
			return
		}
		t.line(line)
	}
}

func (t *tap) line(line []byte) {
	line = bytes.TrimSpace(line)
	if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
		t.u.add(bytes.TrimSpace(data))
	}
}

func (t *tap) finish() {
	t.once.Do(func() {
		if t.sse {
			t.line(t.buf.Bytes())
		} else {
			t.u.add(t.buf.Bytes())
		}
		t.done(t.u)
	})
}
