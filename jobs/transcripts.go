package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Transcripts keep each attempt's redacted transcript for the operator
// page (CONTRACT §13 "Seeing a run"): every attempt's, including those
// that pushed nothing and so have no check run to carry it.
type Transcripts struct{ rdb redis.UniversalClient }

// TranscriptTTL is how long an attempt's transcript is kept.
const TranscriptTTL = 30 * 24 * time.Hour

// maxTranscript bounds one stored transcript (the check run's limit, with
// room for redaction).
const maxTranscript = 96 << 10

// NewTranscripts wraps a Redis client.
func NewTranscripts(rdb redis.UniversalClient) *Transcripts { return &Transcripts{rdb: rdb} }

func transcriptKey(repo string, issue, attempt int) string {
	return fmt.Sprintf("%stranscript:%s#%d:%d", keyPrefix, repo, issue, attempt)
}

// Put stores an attempt's transcript, replacing an earlier one.
func (t *Transcripts) Put(ctx context.Context, repo string, issue, attempt int, text string) error {
	if len(text) > maxTranscript {
		text = text[:maxTranscript] + "\n[… cut …]"
	}
	if err := t.rdb.Set(ctx, transcriptKey(repo, issue, attempt), text, TranscriptTTL).Err(); err != nil {
		return fmt.Errorf("store transcript of %s#%d attempt %d: %w", repo, issue, attempt, err)
	}
	return nil
}

// Get returns an attempt's transcript; ok is false when none is kept.
func (t *Transcripts) Get(ctx context.Context, repo string, issue, attempt int) (text string, ok bool, err error) {
	text, err = t.rdb.Get(ctx, transcriptKey(repo, issue, attempt)).Result()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read transcript of %s#%d attempt %d: %w", repo, issue, attempt, err)
	}
	return text, true, nil
}

// TranscriptPath is where the operator page shows an attempt's transcript.
func TranscriptPath(repo string, issue, attempt int) string {
	return fmt.Sprintf("/ui/transcript/%s/%d/%d", repo, issue, attempt)
}
