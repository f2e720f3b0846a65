package webhooks

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/warden-bot/warden/jobs"
)

// queueRefRE reads the PR number from a merge group's head ref,
// refs/heads/gh-readonly-queue/<base>/pr-<number>-<sha>.
var queueRefRE = regexp.MustCompile(`/gh-readonly-queue/.+/pr-(\d+)-[0-9a-f]+$`)

// repoScope is the repository and installation a repository event names.
type repoScope struct {
	Repo struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
	Installation struct {
		ID int64 `json:"id"`
	} `json:"installation"`
}

// mergeGroup follows the merge queue: a group destroyed because its PR was
// removed from the queue (reason dequeued) is reported on the PR like a red
// CI run. A merged group needs nothing: GitHub closes the PR as merged, and
// that event settles the issue. An invalidated group is rebuilt by the queue
// with the PR still in it, and checks_requested is the queue's CI starting:
// nothing to do for either.
func (r *Router) mergeGroup(ctx context.Context, d Delivery) (Decision, error) {
	var ev struct {
		Action     string `json:"action"`
		Reason     string `json:"reason"`
		MergeGroup struct {
			HeadRef string `json:"head_ref"`
		} `json:"merge_group"`
		repoScope
	}
	if err := decodePayload(d, &ev); err != nil {
		return Decision{}, err
	}
	if ev.Action != "destroyed" || ev.Reason != "dequeued" {
		return ignored("merge group " + ev.Action + " " + ev.Reason + ": not a removal from the queue"), nil
	}
	m := queueRefRE.FindStringSubmatch(ev.MergeGroup.HeadRef)
	if m == nil || ev.Repo.FullName == "" {
		return ignored("merge group of no pull request"), nil
	}
	n, _ := strconv.Atoi(m[1])
	// The worker re-reads the PR and acts only on Warden's own.
	return r.enqueuePR(ctx, jobs.PRPayload{Repo: ev.Repo.FullName, Installation: ev.Installation.ID, PR: n, Action: "dequeued", Reason: ev.Reason})
}

// rulesChanged re-reads a repository's branch rules: a changed ruleset or
// protection may hold a PR back, or release one that waited.
func (r *Router) rulesChanged(ctx context.Context, d Delivery) (Decision, error) {
	var ev repoScope
	if err := decodePayload(d, &ev); err != nil {
		return Decision{}, err
	}
	if !strings.Contains(ev.Repo.FullName, "/") {
		return ignored("rules of no repository (an organization ruleset is read per repository when used)"), nil
	}
	return r.enqueuePR(ctx, jobs.PRPayload{Repo: ev.Repo.FullName, Installation: ev.Installation.ID, Action: "rules"})
}
