package logging

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestLoggerRedactsSecrets(t *testing.T) {
	var buf bytes.Buffer
	log := New("info", []string{"whsec-very-secret-1", "sk-model-key-123456"}, &buf)
	log.Info("calling model with sk-model-key-123456", "err", errors.New("401 for whsec-very-secret-1"), "token", "ghs_"+strings.Repeat("x", 36))
	s := buf.String()
	if strings.Contains(s, "sk-model-key") || strings.Contains(s, "whsec-very") || strings.Contains(s, "ghs_xxx") {
		t.Fatalf("secret in log: %s", s)
	}
	if !strings.Contains(s, `"service":"warden"`) || !strings.Contains(s, "calling model with") {
		t.Fatalf("line lost: %s", s)
	}
}

func TestLoggerLevel(t *testing.T) {
	var buf bytes.Buffer
	log := New("warn", nil, &buf)
	log.Info("routine")
	log.Warn("attention")
	if s := buf.String(); strings.Contains(s, "routine") || !strings.Contains(s, "attention") {
		t.Fatalf("level warn: %s", s)
	}
}
