package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-bot/warden/guards"
	"github.com/warden-bot/warden/outcome"
)

// Subtask is one piece of a decomposition.
type Subtask struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// Plan is the planner's reply (CONTRACT §10).
type Plan struct {
	Decision       string           `json:"decision"`
	Summary        string           `json:"summary"`
	Approach       string           `json:"approach"`
	Files          []string         `json:"files"`
	Subtasks       []Subtask        `json:"subtasks"`
	Obstacle       outcome.Obstacle `json:"obstacle"`
	Discoveries    []string         `json:"discoveries"`
	Recommendation string           `json:"recommendation"`
	Read           []string         `json:"read"` // files or file#Definition to read before planning
}

// Review is the reviewer's verdict.
type Review struct {
	GoalStatus string `json:"goal_status"`
	Missing    string `json:"missing"`
}

var decisions = map[string]bool{"implement": true, "decompose": true, "defer": true, "block": true, "escalate": true, "read": true}
var goals = map[string]bool{outcome.GoalAchieved: true, outcome.GoalPartial: true, outcome.GoalNotAchieved: true, outcome.GoalHollow: true}

// ParsePlan finds the plan object in a reply (fenced, bare, or wrapped in
// prose) and checks it, naming the field that is wrong.
func ParsePlan(text string) (Plan, error) {
	var p Plan
	if err := decodeObject(text, "decision", "Plan", &p); err != nil {
		return p, err
	}
	p.Decision = strings.ToLower(strings.TrimSpace(p.Decision))
	bad := func(msg string) (Plan, error) { return p, contractError("Plan", "plan: "+msg) }
	if !decisions[p.Decision] {
		return bad(fmt.Sprintf("decision must be one of implement|decompose|defer|block|escalate, not %q", p.Decision))
	}
	for i, f := range p.Files {
		clean, err := guards.CheckPath(f)
		if err != nil {
			return bad(fmt.Sprintf("files[%d] must be a relative path inside the repository (%v)", i, err))
		}
		p.Files[i] = clean
	}
	if p.Decision == "read" && len(p.Read) == 0 {
		return bad("read (files or file#Definition) is required when decision is read")
	}
	if p.Decision == "decompose" && len(p.Subtasks) < 2 {
		return bad("subtasks (at least two) are required when decision is decompose")
	}
	for i, s := range p.Subtasks {
		if strings.TrimSpace(s.Title) == "" {
			return bad(fmt.Sprintf("subtasks[%d].title must not be empty", i))
		}
	}
	if p.Decision == "block" && strings.TrimSpace(p.Obstacle.Detail) == "" && p.Obstacle.Task == "" {
		return bad("obstacle.detail or obstacle.task is required when decision is block")
	}
	return p, nil
}

// ParseReview finds the review verdict in a reply.
func ParseReview(text string) (Review, error) {
	var r Review
	if err := decodeObject(text, "goal_status", "Review", &r); err != nil {
		return r, err
	}
	r.GoalStatus = strings.ToLower(strings.TrimSpace(r.GoalStatus))
	if !goals[r.GoalStatus] {
		return r, contractError("Review", fmt.Sprintf("review: goal_status must be one of achieved|partial|not_achieved|hollow, not %q", r.GoalStatus))
	}
	return r, nil
}

// decodeObject decodes the first balanced JSON object in text that has key.
func decodeObject(text, key, stage string, v any) error {
	var lastErr error
	for start := strings.IndexByte(text, '{'); start >= 0; {
		// An unclosed brace is a truncated reply, or prose before the object
		// (a code snippet such as "func f() {"): look on.
		if end := matchBrace(text, start); end < 0 {
			if lastErr == nil {
				lastErr = fmt.Errorf("the JSON object starting at byte %d is not closed (truncated reply?)", start)
			}
		} else {
			chunk := text[start : end+1]
			var probe map[string]json.RawMessage
			if json.Unmarshal([]byte(chunk), &probe) == nil {
				if _, ok := probe[key]; ok {
					if err := json.Unmarshal([]byte(chunk), v); err != nil {
						return contractError(stage, "the reply's JSON has a field of the wrong type: "+err.Error())
					}
					return nil
				}
			}
		}
		next := strings.IndexByte(text[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	if lastErr != nil {
		return contractError(stage, lastErr.Error())
	}
	return contractError(stage, fmt.Sprintf("no JSON object with %q found in the reply", key))
}

// matchBrace returns the index of the brace closing the one at start,
// ignoring braces inside strings, or -1.
func matchBrace(s string, start int) int {
	depth, inStr, esc := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
