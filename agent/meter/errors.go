package meter

import (
	"errors"

	"github.com/warden-bot/warden/outcome"
)

// stage names the stage on a budget error, so the outcome says where it stopped.
func stage(err error, name string) error {
	var oe *outcome.Error
	if errors.As(err, &oe) && oe.Stage == "" {
		c := *oe
		c.Stage = name
		return &c
	}
	return err
}
