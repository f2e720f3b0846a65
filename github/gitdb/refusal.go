package gitdb

import (
	"strings"
	"sync"
	"time"
)

// Refused reports whether a git push failed because the branch requires
// signed commits, in GitHub's words: "GH006: Protected branch update
// failed … Commits must have verified signatures." (branch protection) or
// "GH013: Repository rule violations found … Commits must have verified
// signatures." (rulesets).
func Refused(pushErr error) bool {
	if pushErr == nil {
		return false
	}
	s := pushErr.Error()
	return strings.Contains(s, "must have verified signatures") && (strings.Contains(s, "GH006") || strings.Contains(s, "GH013"))
}

// Remember is what a worker learned about repositories whose branches
// require signed commits, so their next commits go through the API
// without a refused push first. Entries last TTL (rules change).
type Remember struct {
	TTL time.Duration
	Now func() time.Time

	mu   sync.Mutex
	seen map[string]time.Time
}

// Mark remembers that repo ("owner/name") requires signed commits.
func (r *Remember) Mark(repo string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]time.Time{}
	}
	r.seen[repo] = r.now()
}

// Signed reports whether repo was marked within TTL.
func (r *Remember) Signed(repo string) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	at, ok := r.seen[repo]
	return ok && r.now().Sub(at) < r.ttl()
}

func (r *Remember) ttl() time.Duration {
	if r.TTL > 0 {
		return r.TTL
	}
	return 10 * time.Minute
}

func (r *Remember) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}
