package world

import (
	"maps"
	"regexp"

	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/gitfixture"
)

// CalcRepo is a tiny Go module whose Add is wrong; its test catches it.
func CalcRepo() map[string]string { return gitfixture.GoModuleWithBug() }

// WithFiles is the calc module with extra files added or replaced.
func WithFiles(extra map[string]string) map[string]string {
	f := CalcRepo()
	maps.Copy(f, extra)
	return f
}

// WithConfig is the calc module with its .github/warden.yml replaced.
func WithConfig(yml string) map[string]string {
	return WithFiles(map[string]string{".github/warden.yml": yml})
}

// Canned model replies for the calc module.
const (
	PlanReply = "Here is my plan:\n```json\n" + `{"decision":"implement","summary":"Make Add return the sum.","approach":"Replace the subtraction in calc.Add with an addition.","files":["calc/calc.go"],"discoveries":["calc.Add subtracted"],"recommendation":""}` + "\n```\n"
	FixBlock  = "calc/calc.go\n<<<<<<< SEARCH\n\treturn a - b\n=======\n\treturn a + b\n>>>>>>> REPLACE\n"
	// WrongBlock compiles but keeps the test red.
	WrongBlock = "calc/calc.go\n<<<<<<< SEARCH\n\treturn a - b\n=======\n\treturn a * b\n>>>>>>> REPLACE\n"
	Achieved   = `{"goal_status":"achieved","missing":""}`
)

// Text is a plain model reply.
func Text(s string) fakemodel.Reply { return fakemodel.Reply{Text: s} }

// HappyScript plans, fixes the bug, and approves.
func HappyScript(req fakemodel.Request) fakemodel.Reply {
	switch req.Stage {
	case "plan":
		return Text(PlanReply)
	case "implement", "fix":
		return Text(FixBlock)
	case "review":
		return Text(Achieved)
	}
	return Text("I do not understand.")
}

// RedScript never gets the test green: every fix rewrites the return line
// the prompt currently shows into another wrong one.
func RedScript(req fakemodel.Request) fakemodel.Reply {
	switch req.Stage {
	case "plan":
		return Text(PlanReply)
	case "implement":
		return Text(WrongBlock)
	case "fix":
		lines := returnLine.FindAllString(req.Prompt, -1)
		if len(lines) == 0 {
			return Text(WrongBlock)
		}
		cur := lines[len(lines)-1]
		return Text("calc/calc.go\n<<<<<<< SEARCH\n" + cur + "\n=======\n" + cur + " + 0\n>>>>>>> REPLACE\n")
	case "review":
		return Text(Achieved)
	}
	return Text("?")
}

var returnLine = regexp.MustCompile(`\treturn a [^\n]*`)
