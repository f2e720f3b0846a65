package jobs

import "context"

// Live reports whether the issue has a run queued or running, under its own
// task id or a derived one (a deferral): guidance sent now reaches it.
func (q *Queue) Live(ctx context.Context, repo string, issue int) (bool, error) {
	alias, _, err := q.aliasState(ctx, repo, issue)
	if err != nil || alias != "" {
		return alias != "", err
	}
	return q.liveTask(RunTaskID(repo, issue))
}
