package e2e

import (
	"regexp"

	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/gitfixture"
)

// calcRepo is a tiny Go module whose Add is wrong; its test catches it.
func calcRepo() map[string]string { return gitfixture.GoModuleWithBug() }

const planReply = "Here is my plan:\n```json\n" + `{"decision":"implement","summary":"Make Add return the sum.","approach":"Replace the subtraction in calc.Add with an addition.","files":["calc/calc.go"],"discoveries":["calc.Add subtracted"],"recommendation":""}` + "\n```\n"

const fixBlock = "calc/calc.go\n<<<<<<< SEARCH\n\treturn a - b\n=======\n\treturn a + b\n>>>>>>> REPLACE\n"

// wrongBlock compiles but keeps the test red.
const wrongBlock = "calc/calc.go\n<<<<<<< SEARCH\n\treturn a - b\n=======\n\treturn a * b\n>>>>>>> REPLACE\n"

const achieved = `{"goal_status":"achieved","missing":""}`

func text(s string) fakemodel.Reply { return fakemodel.Reply{Text: s} }

// happyScript plans, fixes the bug, and approves.
func happyScript(req fakemodel.Request) fakemodel.Reply {
	switch req.Stage {
	case "plan":
		return text(planReply)
	case "implement", "fix":
		return text(fixBlock)
	case "review":
		return text(achieved)
	}
	return text("I do not understand.")
}

// redScript never gets the test green: every fix rewrites the return line
// the prompt currently shows into another wrong one.
func redScript(req fakemodel.Request) fakemodel.Reply {
	switch req.Stage {
	case "plan":
		return text(planReply)
	case "implement":
		return text(wrongBlock)
	case "fix":
		lines := returnLine.FindAllString(req.Prompt, -1)
		if len(lines) == 0 {
			return text(wrongBlock)
		}
		cur := lines[len(lines)-1]
		return text("calc/calc.go\n<<<<<<< SEARCH\n" + cur + "\n=======\n" + cur + " + 0\n>>>>>>> REPLACE\n")
	case "review":
		return text(achieved)
	}
	return text("?")
}

var returnLine = regexp.MustCompile(`\treturn a [^\n]*`)
