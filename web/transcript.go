package web

import (
	"context"
	"html/template"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
)

// transcriptTmpl shows one attempt's transcript as the text it is: the
// Markdown a check run would render, escaped, in a <pre>.
var transcriptTmpl = template.Must(template.New("t").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Warden · {{.Repo}}#{{.Issue}} attempt {{.Attempt}}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}pre{white-space:pre-wrap;background:#f6f8fa;padding:1rem}</style></head>
<body><p><a href="/ui">Warden</a> · transcript of {{.Repo}}#{{.Issue}}, attempt {{.Attempt}}</p>
<pre>{{.Text}}</pre></body></html>
`))

// transcriptPage serves /ui/transcript/:owner/:repo/:issue/:attempt.
func transcriptPage(read func(ctx context.Context, repo string, issue, attempt int) (string, bool, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		issue, err1 := strconv.Atoi(c.Param("issue"))
		attempt, err2 := strconv.Atoi(c.Param("attempt"))
		if err1 != nil || err2 != nil || issue <= 0 || attempt <= 0 {
			return c.String(http.StatusBadRequest, "issue and attempt are positive numbers")
		}
		repo := c.Param("owner") + "/" + c.Param("repo")
		text, ok, err := read(c.Request().Context(), repo, issue, attempt)
		if err != nil {
			return c.String(http.StatusServiceUnavailable, "the transcript could not be read")
		}
		if !ok {
			return c.String(http.StatusNotFound, "no transcript is kept for this attempt")
		}
		c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
		c.Response().WriteHeader(http.StatusOK)
		return transcriptTmpl.Execute(c.Response(), map[string]any{"Repo": repo, "Issue": issue, "Attempt": attempt, "Text": text})
	}
}
