package steer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/warden-bot/warden/agent"
)

// MaxText bounds one note, in bytes, as the model will read it.
const MaxText = 4000

// ErrEmpty is guidance with nothing visible in it.
var ErrEmpty = errors.New("the guidance is empty")

// Clean is a writer's guidance as the model may read it: only what GitHub
// shows a maintainer (agent.Visible drops HTML comments and invisible
// characters, where instructions could hide), trimmed, and bounded.
func Clean(text string) (string, error) {
	t := strings.TrimSpace(strings.ToValidUTF8(agent.Visible(text), "\uFFFD"))
	switch {
	case t == "":
		return "", ErrEmpty
	case len(t) > MaxText:
		return "", fmt.Errorf("the guidance is %d bytes; at most %d are kept", len(t), MaxText)
	}
	return t, nil
}
