package githubapp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Permission levels, ordered: a user has at least a level when their rank is >=.
// GitHub's legacy "permission" field folds maintain into write and triage into read.
var permRank = map[string]int{"none": 0, "read": 1, "triage": 1, "write": 2, "maintain": 2, "admin": 3}

// CanWrite reports whether a permission string is write, maintain or admin.
func CanWrite(perm string) bool { return permRank[perm] >= 2 }

// PermissionCache answers "what permission does user have on repo" through
// GitHub, remembering answers briefly so a burst of comments costs one call.
// Errors are never cached and callers must treat them as a refusal.
type PermissionCache struct {
	app *App
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	answers map[string]permAnswer
}

type permAnswer struct {
	perm string
	at   time.Time
}

// NewPermissionCache caches answers for ttl.
func NewPermissionCache(app *App, ttl time.Duration) *PermissionCache {
	return &PermissionCache{app: app, ttl: ttl, now: time.Now, answers: map[string]permAnswer{}}
}

// Permission returns the user's permission on owner/repo ("admin", "write",
// "read" or "none", with maintain reported as write).
func (p *PermissionCache) Permission(ctx context.Context, installation int64, owner, repo, user string) (string, error) {
	key := fmt.Sprintf("%d/%s/%s/%s", installation, owner, repo, user)
	p.mu.Lock()
	a, ok := p.answers[key]
	p.mu.Unlock()
	if ok && p.now().Sub(a.at) < p.ttl {
		return a.perm, nil
	}
	lvl, _, err := p.app.Client(installation).Repositories.GetPermissionLevel(ctx, owner, repo, user)
	if err != nil {
		return "", fmt.Errorf("permission of %s on %s/%s: %w", user, owner, repo, err)
	}
	perm := lvl.GetPermission()
	p.mu.Lock()
	p.prune()
	p.answers[key] = permAnswer{perm: perm, at: p.now()}
	p.mu.Unlock()
	return perm, nil
}

// prune drops expired answers, so the cache holds at most the users seen
// within one ttl. The caller holds mu.
func (p *PermissionCache) prune() {
	now := p.now()
	for k, a := range p.answers {
		if now.Sub(a.at) >= p.ttl {
			delete(p.answers, k)
		}
	}
}

// Forget drops the cached answers of user (every user when empty) in an
// installation: a member or organization event changed who may write, and
// a demoted writer must not keep write for the rest of the ttl.
func (p *PermissionCache) Forget(installation int64, user string) {
	prefix := fmt.Sprintf("%d/", installation)
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.answers {
		if strings.HasPrefix(k, prefix) && (user == "" || strings.EqualFold(k[strings.LastIndexByte(k, '/')+1:], user)) {
			delete(p.answers, k)
		}
	}
}
