package githubapp

import (
	"net/http"
	"strconv"
)

// observed reports every request that reaches GitHub (each retry counts:
// the metric is about GitHub's load and answers, not Warden's calls).
type observed struct {
	next    http.RoundTripper
	observe func(method, code string)
}

func (o observed) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := o.next.RoundTrip(req)
	code := "error"
	if err == nil {
		code = strconv.Itoa(resp.StatusCode)
	}
	o.observe(req.Method, code)
	return resp, err
}
