package harness

import (
	"encoding/json"
	"time"
)

// Stamp makes body another event than one sent before, as two real events
// always are: the payload's main object (its comment, review, check run or
// suite, pull request or issue) gets updated_at n milliseconds from now.
// Warden takes the same signed body under a new delivery id for a replay,
// so tests that mean a new event send a stamped body. ok is false when the
// payload has none of those objects (or is not a JSON object).
func Stamp(body []byte, n int) (out []byte, ok bool) {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return body, false
	}
	for _, k := range []string{"comment", "review", "check_run", "check_suite", "pull_request", "issue"} {
		if o, isObj := m[k].(map[string]any); isObj {
			o["updated_at"] = time.Now().UTC().Add(time.Duration(n) * time.Millisecond).Format(time.RFC3339Nano)
			out, err := json.Marshal(m)
			return out, err == nil
		}
	}
	return body, false
}
