package githubapp

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A 403 secondary rate limit without its headers is told from a permission
// refusal by GitHub's message (recorded bodies in test/fixtures/github-api),
// and the body stays readable for the caller.
func TestSecondaryLimitRecognisedByItsBody(t *testing.T) {
	for _, name := range []string{"rate-limit-secondary.403.json", "rate-limit-secondary.wait-a-few-minutes.403.json", "rate-limit-primary.403.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "test", "fixtures", "github-api", name))
		if err != nil {
			t.Fatal(err)
		}
		resp := &http.Response{StatusCode: 403, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(string(b)))}
		if !rateLimited(resp) {
			t.Errorf("%s: not recognised as a rate limit", name)
		}
		if rest, _ := io.ReadAll(resp.Body); string(rest) != string(b) {
			t.Errorf("%s: body not put back: %q", name, rest)
		}
	}
	denied := `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/issues/comments#create-an-issue-comment","status":"403"}`
	if rateLimited(&http.Response{StatusCode: 403, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(denied))}) {
		t.Error("a permission refusal read as a rate limit")
	}
}
