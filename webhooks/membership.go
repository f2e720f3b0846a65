package webhooks

import (
	"encoding/json"
	"fmt"
)

// forgetter is a permission cache that can drop answers.
type forgetter interface {
	Forget(installation int64, user string)
}

// membership handles member (a repository's collaborators) and organization
// (its members) events: whoever they name may have lost write, so their
// cached permission is dropped at once instead of living out its ttl. An
// organization event without a member drops the installation's answers.
func (r *Router) membership(d Delivery) (Decision, error) {
	var p struct {
		Installation struct{ ID int64 }      `json:"installation"`
		Member       *struct{ Login string } `json:"member"`
		Membership   *struct {
			User *struct{ Login string } `json:"user"`
		} `json:"membership"`
	}
	if err := json.Unmarshal(d.Payload, &p); err != nil {
		return Decision{}, fmt.Errorf("%w: %s: %v", ErrMalformed, d.Event, err)
	}
	f, can := r.Perms.(forgetter)
	if !can || p.Installation.ID == 0 {
		return ignored("no permission cache to update"), nil
	}
	user := ""
	switch {
	case p.Member != nil:
		user = p.Member.Login
	case p.Membership != nil && p.Membership.User != nil:
		user = p.Membership.User.Login
	}
	f.Forget(p.Installation.ID, user)
	r.Log.Info("permission cache invalidated", "event", d.Event, "installation", p.Installation.ID, "user", user)
	return ok("permissions refreshed"), nil
}
