// Package logging builds the process logger.
package logging

import (
	"io"
	"log/slog"
	"strings"

	"github.com/warden-bot/warden/comments"
)

// New is the process logger: JSON lines on w at level (debug, info, warn,
// error; anything else is info). Every line passes the redactor: known
// token shapes and the given secrets never reach a log.
func New(level string, secrets []string, w io.Writer) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(strings.ToUpper(level)))
	var h slog.Handler = slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})
	h = comments.RedactingHandler(h, comments.NewRedactor(secrets...))
	return slog.New(h).With("service", "warden")
}
