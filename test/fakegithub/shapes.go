package fakegithub

import (
	"fmt"
	"hash/fnv"
	"time"
)

// The fields GitHub's OpenAPI description marks required on the objects
// the fake answers with most (conformance_test.go checks them), filled the
// way GitHub fills them for a fresh object: URLs under the API and web
// roots, counters at zero, nullable fields null.

const (
	apiRoot = "https://api.github.test"
	webRoot = "https://github.test"
)

// created is the timestamp the fake gives objects it keeps no time for.
var created = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)

func repoAPI(rp *Repo) string { return fmt.Sprintf("%s/repos/%s/%s", apiRoot, rp.Owner, rp.Name) }

// issueFields are an issue's required fields beyond those issueJSON sets.
func issueFields(rp *Repo, n int, closed bool) map[string]any {
	u := fmt.Sprintf("%s/issues/%d", repoAPI(rp), n)
	m := map[string]any{"url": u, "repository_url": repoAPI(rp), "labels_url": u + "/labels{/name}", "comments_url": u + "/comments",
		"events_url": u + "/events", "assignee": nil, "milestone": nil, "locked": false, "closed_at": nil,
		"created_at": created, "updated_at": created, "author_association": "NONE"}
	if closed {
		m["closed_at"] = created
	}
	return m
}

// pullFields are a pull request's required fields beyond those pullJSON sets.
func pullFields(rp *Repo, p *Pull) map[string]any {
	api, web := fmt.Sprintf("%s/pulls/%d", repoAPI(rp), p.Number), fmt.Sprintf("%s/%s/%s/pull/%d", webRoot, rp.Owner, rp.Name, p.Number)
	issue := fmt.Sprintf("%s/issues/%d", repoAPI(rp), p.Number)
	statuses := fmt.Sprintf("%s/statuses/%s", repoAPI(rp), p.HeadSHA)
	m := map[string]any{"url": api, "diff_url": web + ".diff", "patch_url": web + ".patch", "issue_url": issue,
		"commits_url": api + "/commits", "review_comments_url": api + "/comments", "review_comment_url": repoAPI(rp) + "/pulls/comments{/number}",
		"comments_url": issue + "/comments", "statuses_url": statuses, "locked": false, "assignee": nil, "assignees": []any{},
		"milestone": nil, "created_at": created, "updated_at": created, "closed_at": nil, "merged_at": nil, "merge_commit_sha": nil,
		"author_association": "NONE", "auto_merge": nil, "active_lock_reason": nil, "draft": false, "merged_by": nil,
		"comments": 0, "review_comments": 0, "commits": 1, "additions": 0, "deletions": 0, "changed_files": 0,
		"maintainer_can_modify": false, "mergeable_state": "unknown", "rebaseable": nil,
		"_links": map[string]any{"self": href(api), "html": href(web), "issue": href(issue), "comments": href(issue + "/comments"),
			"review_comments": href(api + "/comments"), "review_comment": href(repoAPI(rp) + "/pulls/comments{/number}"),
			"commits": href(api + "/commits"), "statuses": href(statuses)}}
	if p.State == "closed" {
		m["closed_at"] = created
	}
	if p.Merged {
		m["merged_at"], m["merge_commit_sha"] = created, p.HeadSHA
	}
	if p.AutoMerge {
		m["auto_merge"] = map[string]any{"enabled_by": user(BotLogin), "merge_method": "merge", "commit_title": "", "commit_message": ""}
	}
	return m
}

func href(u string) map[string]any { return map[string]any{"href": u} }

// commentFields are an issue comment's required fields beyond commentJSON's.
func commentFields(rp *Repo, c *Comment) map[string]any {
	return map[string]any{"node_id": fmt.Sprintf("IC_%d", c.ID), "url": fmt.Sprintf("%s/issues/comments/%d", repoAPI(rp), c.ID),
		"issue_url": fmt.Sprintf("%s/issues/%d", repoAPI(rp), c.Issue), "updated_at": c.Created.UTC().Format(time.RFC3339),
		"author_association": "NONE"}
}

// labelJSON is a label as GitHub's "label" schema has it.
func labelJSON(name string) map[string]any {
	h := fnv.New32a()
	h.Write([]byte(name))
	id := int64(h.Sum32())
	return map[string]any{"id": id, "node_id": fmt.Sprintf("LA_%d", id), "url": apiRoot + "/labels/" + name, "name": name,
		"description": nil, "color": "ededed", "default": false}
}

// statusJSON is a commit status as GitHub's "status" schema has it.
func statusJSON(rp *Repo, sha string, id int64, st Status) map[string]any {
	return map[string]any{"url": fmt.Sprintf("%s/statuses/%s", repoAPI(rp), sha), "avatar_url": nil, "id": id, "node_id": fmt.Sprintf("SC_%d", id),
		"state": st.State, "description": st.Description, "target_url": nil, "context": st.Context,
		"created_at": created, "updated_at": created, "creator": user(st.Creator)}
}

// reviewJSON is a review as GitHub's "pull-request-review" schema has it.
func reviewJSON(rp *Repo, pr int, rv Review) map[string]any {
	web := fmt.Sprintf("%s/%s/%s/pull/%d", webRoot, rp.Owner, rp.Name, pr)
	return map[string]any{"id": rv.ID, "node_id": fmt.Sprintf("PRR_%d", rv.ID), "user": user(rv.User), "body": "", "state": rv.State,
		"commit_id": rv.CommitID, "html_url": fmt.Sprintf("%s#pullrequestreview-%d", web, rv.ID),
		"pull_request_url": fmt.Sprintf("%s/pulls/%d", repoAPI(rp), pr), "author_association": "COLLABORATOR",
		"_links": map[string]any{"html": href(fmt.Sprintf("%s#pullrequestreview-%d", web, rv.ID)), "pull_request": href(fmt.Sprintf("%s/pulls/%d", repoAPI(rp), pr))}}
}

// checkRunFields are a created check run's required fields beyond createCheckRun's.
func checkRunFields(rp *Repo, c CreatedCheckRun) map[string]any {
	completed := any(nil)
	if c.Status == "completed" {
		completed = created
	}
	return map[string]any{"node_id": fmt.Sprintf("CR_%d", c.ID), "url": fmt.Sprintf("%s/check-runs/%d", repoAPI(rp), c.ID),
		"details_url": nil, "external_id": "", "started_at": created, "completed_at": completed,
		"check_suite": map[string]any{"id": c.ID}, "pull_requests": []any{}}
}

// with adds extra's fields to m.
func with(m, extra map[string]any) map[string]any {
	for k, v := range extra {
		m[k] = v
	}
	return m
}
