package githubapp

import (
	"bytes"
	"io"
	"net/http"
	"strings"
)

// limitBody reports a 403 whose body is GitHub's rate-limit message. A
// secondary limit may come without Retry-After or x-ratelimit-remaining
// (GitHub's documentation says to wait at least a minute then); only its
// message tells it from a permission refusal. The body is read at most
// 4 KiB and put back for whoever reads the answer.
func limitBody(resp *http.Response) bool {
	if resp.StatusCode != http.StatusForbidden || resp.Body == nil {
		return false
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	if err != nil {
		return false
	}
	msg := strings.ToLower(string(head))
	return strings.Contains(msg, "secondary rate limit") || strings.Contains(msg, "api rate limit exceeded")
}
