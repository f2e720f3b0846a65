package agent

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/warden-bot/warden/outcome"
)

const planJSON = `{"decision": "implement", "summary": "fix Add", "approach": "return a + b in {calc.go}",
 "files": ["calc/calc.go"], "discoveries": ["Add had no test"], "recommendation": ""}`

func TestParsePlanFindsTheObject(t *testing.T) {
	cases := map[string]string{
		"bare":                 planJSON,
		"json fence":           "```json\n" + planJSON + "\n```",
		"plain fence":          "```\n" + planJSON + "\n```",
		"prose around":         "Here is my plan.\n\n" + planJSON + "\n\nLet me know if you want changes.",
		"fence and prose":      "I looked at the tree.\n```json\n" + planJSON + "\n```\nThe change is small, so {one file} is enough.",
		"trailing object":      planJSON + "\nFor reference, the test output was {\"ok\": false}.",
		"other object first":   "The config is {\"mode\": \"cautious\"}; my plan:\n" + planJSON,
		"code before":          "The bug is in `func Add(a, b int) int {` which subtracts.\n```json\n" + planJSON + "\n```",
		"stray quote before":   "The issue says \"it's broken.\n" + planJSON,
		"escaped quote":        strings.Replace(planJSON, "fix Add", `fix \"Add\" {`, 1),
		"decision with case":   strings.Replace(planJSON, `"implement"`, `" Implement "`, 1),
		"CRLF and indentation": strings.ReplaceAll("```json\n  "+planJSON+"\n```", "\n", "\r\n"),
	}
	for name, reply := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := ParsePlan(reply)
			if err != nil {
				t.Fatalf("ParsePlan: %v\nreply:\n%s", err, reply)
			}
			if p.Decision != "implement" || !reflect.DeepEqual(p.Files, []string{"calc/calc.go"}) || !strings.HasPrefix(p.Summary, "fix ") {
				t.Fatalf("plan %+v", p)
			}
		})
	}
}

func TestParsePlanDecisions(t *testing.T) {
	for _, reply := range []string{
		`{"decision": "decompose", "summary": "too big", "subtasks": [{"title": "parser", "body": "b"}, {"title": "printer"}]}`,
		`{"decision": "block", "obstacle": {"kind": "missing_prerequisite", "task": "#12"}}`,
		`{"decision": "defer", "obstacle": {"kind": "external_dependency", "detail": "needs a vendor API key"}}`,
		`{"decision": "escalate", "obstacle": {"kind": "architectural_gap", "detail": "no plugin system"}, "recommendation": "design one"}`,
	} {
		p, err := ParsePlan(reply)
		if err != nil {
			t.Errorf("%s: %v", reply, err)
			continue
		}
		if p.Decision == "decompose" && (len(p.Subtasks) != 2 || p.Subtasks[1].Title != "printer") {
			t.Errorf("subtasks %+v", p.Subtasks)
		}
		if p.Decision == "block" && (p.Obstacle.Task != "#12" || p.Obstacle.Kind != "missing_prerequisite") {
			t.Errorf("obstacle %+v", p.Obstacle)
		}
	}
}

// Every schema error is a contract failure that names what is wrong, so the
// repair call can quote it to the model.
func TestParsePlanSchemaErrors(t *testing.T) {
	cases := []struct{ name, reply, field string }{
		{"no JSON", "I would implement this by editing calc.go.", `"decision"`},
		{"missing decision", `{"summary": "fix", "files": ["a.go"]}`, `"decision"`},
		{"unknown decision", `{"decision": "refactor", "files": ["a.go"]}`, `decision must be one of`},
		{"decision not a string", `{"decision": 3}`, "decision"},
		{"files not a list", `{"decision": "implement", "files": "a.go"}`, "files"},
		{"files of numbers", `{"decision": "implement", "files": [1, 2]}`, "files"},
		{"file outside the repository", `{"decision": "implement", "files": ["ok.go", "../../etc/passwd"]}`, "files[1]"},
		{"absolute file", `{"decision": "implement", "files": ["/etc/passwd"]}`, "files[0]"},
		{"subtasks not a list", `{"decision": "decompose", "subtasks": "many"}`, "subtasks"},
		{"decompose with one subtask", `{"decision": "decompose", "subtasks": [{"title": "all of it"}]}`, "subtasks"},
		{"subtask without title", `{"decision": "decompose", "subtasks": [{"title": "a"}, {"body": "b"}]}`, "subtasks[1].title"},
		{"block without obstacle", `{"decision": "block"}`, "obstacle"},
		{"obstacle not an object", `{"decision": "block", "obstacle": "#12"}`, "obstacle"},
		{"truncated", "```json\n{\"decision\": \"implement\", \"summary\": \"fix Add\", \"files\": [\"calc", "truncated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePlan(tc.reply)
			if err == nil {
				t.Fatal("no error")
			}
			if got := outcome.ClassOf(err); got != outcome.ContractFailure {
				t.Errorf("class %s, want contract_failure (%v)", got, err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error %q does not name %q", err, tc.field)
			}
		})
	}
}

func TestParseReview(t *testing.T) {
	r, err := ParseReview("The diff fixes the sign.\n```json\n{\"goal_status\": \"Partial\", \"missing\": \"a test for negative numbers\"}\n```")
	if err != nil || r.GoalStatus != outcome.GoalPartial || r.Missing != "a test for negative numbers" {
		t.Fatalf("ParseReview = %+v, %v", r, err)
	}
	for _, status := range []string{"achieved", "not_achieved", "hollow"} {
		if r, err := ParseReview(`{"goal_status": "` + status + `"}`); err != nil || r.GoalStatus != status {
			t.Errorf("%s: %+v, %v", status, r, err)
		}
	}
	for reply, field := range map[string]string{
		`{"goal_status": "done"}`:                   "goal_status must be one of",
		`{"missing": "everything"}`:                 `"goal_status"`,
		`{"goal_status": "achieved", "missing": 3}`: "missing",
		"LGTM!": `"goal_status"`,
	} {
		_, err := ParseReview(reply)
		var oe *outcome.Error
		if !errors.As(err, &oe) || oe.Class != outcome.ContractFailure || !strings.Contains(err.Error(), field) {
			t.Errorf("ParseReview(%q) = %v, want a contract failure naming %s", reply, err, field)
		}
	}
}
