package testreport

import (
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"
)

// parseJUnit reads JUnit XML (node's junit reporter, Surefire, Gradle) into
// r: a test's id is its enclosing suites' names and its own, joined by " > ".
func parseJUnit(data []byte, r *Result) error {
	d := xml.NewDecoder(strings.NewReader(string(data)))
	var suites []string
	var cur *junitCase
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "testsuite":
				suites = append(suites, attr(t, "name"))
			case "testcase":
				// The class (pytest's module, Surefire's class) joins the
				// path unless the suite names it already; node's is "test".
				path := slices.Clone(suites)
				if cn := attr(t, "classname"); cn != "" && cn != "test" && (len(path) == 0 || path[len(path)-1] != cn) {
					path = append(path, cn)
				}
				cur = &junitCase{id: strings.Join(append(path, attr(t, "name")), " > ")}
				cur.failed = attr(t, "failure") != ""
			case "failure", "error":
				if cur != nil {
					cur.failed, cur.inFailure = true, true
					cur.text.WriteString(attr(t, "message") + "\n")
				}
			}
		case xml.CharData:
			if cur != nil && cur.inFailure {
				cur.text.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "testsuite":
				if len(suites) > 0 {
					suites = suites[:len(suites)-1]
				}
			case "failure", "error":
				if cur != nil {
					cur.inFailure = false
				}
			case "testcase":
				if cur != nil {
					r.Ran++
					if cur.failed && !slices.Contains(r.Failed, cur.id) {
						r.Failed = append(r.Failed, cur.id)
						r.Failures[cur.id] = cur.text.String()
					}
				}
				cur = nil
			}
		}
	}
}

type junitCase struct {
	id                string
	failed, inFailure bool
	text              strings.Builder
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
