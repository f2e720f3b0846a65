package jobs

import "github.com/warden-bot/warden/outcome"

func outcomeRecord(i int) outcome.Record {
	return outcome.Record{Outcome: outcome.Completed, Attempt: i}.Normalize()
}
