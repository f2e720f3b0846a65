package main

import (
	"io"
	"log/slog"
	"strings"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/config"
)

// newLogger is the process logger: JSON lines on stderr, at the configured level.
func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(strings.ToUpper(cfg.LogLevel)))
	var h slog.Handler = slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})
	// Every line passes the redactor: known token shapes and the configured secrets.
	h = comments.RedactingHandler(h, comments.NewRedactor(cfg.Secrets()...))
	return slog.New(h).With("service", "warden")
}
