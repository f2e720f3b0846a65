package e2e

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakemodel"
)

// A node module tested with node's own test runner (`node --test`), which
// Warden reads test by test through its JUnit reporter.
func nodeRepo(extra ...map[string]string) map[string]string {
	f := map[string]string{
		".github/warden.yml": "test: node --test\nmax_fix_attempts: 2\n",
		".gitignore":         "*.marker\n",
		"README.md":          "# calc\n",
		"calc.js":            "exports.add = function (a, b) {\n\treturn a - b\n}\n\nexports.mul = function (a, b) {\n\treturn a * b\n}\n",
		"test/calc.test.js": "const test = require('node:test')\nconst assert = require('node:assert')\nconst { add, mul } = require('../calc.js')\n\n" +
			"test('calc add', () => assert.strictEqual(add(2, 3), 5))\ntest('product', () => assert.strictEqual(mul(2, 3), 6, 'mul(2, 3) = ' + mul(2, 3) + ', want 6'))\n",
	}
	for _, e := range extra {
		maps.Copy(f, e)
	}
	return f
}

var nodeExpired = map[string]string{
	"test/clock.test.js": "const test = require('node:test')\nconst assert = require('node:assert')\n\ntest('certificate', () => assert.ok(false, 'certificate ran out in ' + 2020))\n",
}

var nodeFlaky = map[string]string{
	"test/flaky.test.js": `const test = require('node:test')
const fs = require('node:fs')
const path = require('node:path')

test('sometimes', () => {
  const src = fs.readFileSync(path.join(__dirname, '..', 'calc.js'), 'utf8')
  if (!src.includes('a + b')) return
  const m = path.join(__dirname, '..', 'once.marker')
  if (fs.existsSync(m)) return
  fs.writeFileSync(m, '')
  throw new Error('lost a race ' + 'this time')
})
`,
}

const (
	nodePlan   = "```json\n" + `{"decision":"implement","summary":"Make add return the sum.","approach":"Replace the subtraction in add.","files":["calc.js"],"discoveries":[],"recommendation":""}` + "\n```\n"
	nodeFix    = "calc.js\n<<<<<<< SEARCH\n\treturn a - b\n=======\n\treturn a + b\n>>>>>>> REPLACE\n"
	nodeBreak  = "calc.js\n<<<<<<< SEARCH\n\treturn a * b\n=======\n\treturn a + b + 0\n>>>>>>> REPLACE\n"
	nodeMend   = "calc.js\n<<<<<<< SEARCH\n\treturn a + b + 0\n=======\n\treturn a * b\n>>>>>>> REPLACE\n"
	nodeIssue  = "add(2, 3) returns -1; it should add."
	nodeTitle  = "add returns the difference"
	nodeAssert = "certificate ran out in 2020"
)

// nodeScript plans and fixes add; with breaking set, the implementation
// also breaks mul and the fix mends it.
func nodeScript(breaking bool) func(fakemodel.Request) fakemodel.Reply {
	return func(req fakemodel.Request) fakemodel.Reply {
		switch req.Stage {
		case "plan":
			return text(nodePlan)
		case "implement":
			if breaking {
				return text(nodeFix + "\n" + nodeBreak)
			}
			return text(nodeFix)
		case "fix":
			return text(nodeMend)
		case "review":
			return text(achieved)
		}
		return text("?")
	}
}

func TestBaselineNodePreExistingFailureIsNotTheModels(t *testing.T) {
	w := newWorld(t, nodeRepo(nodeExpired))
	w.Model.Script(nodeScript(false))
	w.Label(51, nodeTitle, nodeIssue, "warden:maintenance", "alice")
	rec := w.OutcomeOf(51, 120*time.Second)
	if rec.Outcome != outcome.Completed || rec.PR == 0 || rec.Tests == nil {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
	if !slices.Equal(rec.Tests.PreExisting, []string{"certificate"}) || len(rec.Tests.Caused) != 0 || len(rec.Tests.FixedUnrelated) != 0 {
		t.Fatalf("tests = %+v", rec.Tests)
	}
	if !strings.Contains(w.Pull().Body, "1 test already fails on `main`; not caused by this change: `certificate`") {
		t.Errorf("PR body:\n%s", w.Pull().Body)
	}
	if n := len(w.Model.RequestsFor("fix")); n != 0 {
		t.Errorf("%d fix requests for a failure already on main", n)
	}
	noRequestMentions(t, w, nodeAssert)
}

func TestBaselineNodeFlakyTestIsNotHandedToTheModel(t *testing.T) {
	w := newWorld(t, nodeRepo(nodeFlaky))
	w.Model.Script(nodeScript(false))
	w.Label(52, nodeTitle, nodeIssue, "warden:maintenance", "alice")
	rec := w.OutcomeOf(52, 120*time.Second)
	if rec.Outcome != outcome.Completed || rec.Tests == nil {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
	if !slices.Equal(rec.Tests.Flaky, []string{"sometimes"}) || len(rec.Tests.Caused) != 0 {
		t.Fatalf("tests = %+v", rec.Tests)
	}
	if n := len(w.Model.RequestsFor("fix")); n != 0 {
		t.Errorf("%d fix requests for a flaky test", n)
	}
	noRequestMentions(t, w, "lost a race this time")
}

func TestBaselineNodeCausedFailureGoesToTheFixLoop(t *testing.T) {
	w := newWorld(t, nodeRepo(nodeExpired))
	w.Model.Script(nodeScript(true))
	w.Label(53, nodeTitle, nodeIssue, "warden:maintenance", "alice")
	rec := w.OutcomeOf(53, 150*time.Second)
	if rec.Outcome != outcome.Completed || rec.Tests == nil {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
	fixes := w.Model.RequestsFor("fix")
	if len(fixes) != 1 || !strings.Contains(fixes[0].Prompt, "mul(2, 3) = 5, want 6") {
		t.Fatalf("fix requests = %d; want one quoting the broken product test\n%s", len(fixes), tail(w.Bot.Logs(), 3000))
	}
	if strings.Contains(fixes[0].Prompt, nodeAssert) {
		t.Errorf("the fix prompt quotes the failure already on main:\n%s", fixes[0].Prompt)
	}
}

// With `setup:`, what it installed in the worktree (node_modules, ignored
// by git) is in the base checkout too: the base's tests run as the
// change's do, so only the unrelated failure is pre-existing.
func TestBaselineNodeSetupProductsReachTheBase(t *testing.T) {
	files := nodeRepo(nodeExpired, map[string]string{
		".github/warden.yml": "setup: mkdir -p node_modules/five && echo 'module.exports = 5' > node_modules/five/index.js\ntest: node --test\nmax_fix_attempts: 2\n",
		".gitignore":         "*.marker\nnode_modules/\n",
		"test/calc.test.js": "const test = require('node:test')\nconst assert = require('node:assert')\nconst five = require('five')\nconst { add, mul } = require('../calc.js')\n\n" +
			"test('calc add', () => assert.strictEqual(add(2, 3), five))\ntest('product', () => assert.strictEqual(mul(2, 3), 6))\n",
		// Without node_modules on the base this file fails to load there,
		// and the certificate's failure would count as the change's.
		"test/clock.test.js": "const test = require('node:test')\nconst assert = require('node:assert')\nconst five = require('five')\n\ntest('certificate', () => assert.ok(five > 5, 'certificate ran out in ' + 2020))\n",
	})
	w := newWorld(t, files)
	w.Model.Script(nodeScript(false))
	w.Label(54, nodeTitle, nodeIssue, "warden:maintenance", "alice")
	rec := w.OutcomeOf(54, 150*time.Second)
	if rec.Outcome != outcome.Completed || rec.Tests == nil {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
	if !slices.Equal(rec.Tests.PreExisting, []string{"certificate"}) || len(rec.Tests.Flaky) != 0 || len(rec.Tests.FixedUnrelated) != 0 {
		t.Fatalf("tests = %+v", rec.Tests)
	}
}
