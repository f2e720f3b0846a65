package systemic

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// path is where a repository's unfiled Alert waits.
func (s *Filer) path(repo string) string {
	return filepath.Join(s.Dir, "paused-"+strings.ReplaceAll(repo, "/", "__")+".json")
}

func (s *Filer) load(repo string) Alert {
	var al Alert
	if b, err := os.ReadFile(s.path(repo)); err == nil {
		_ = json.Unmarshal(b, &al)
	}
	return al
}

// save writes the Alert atomically: a crash leaves the old file or the new one.
func (s *Filer) save(al Alert) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(al, "", "  ")
	if err != nil {
		return err
	}
	tmp := s.path(al.Repo) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.path(al.Repo))
}

// mergeAlert joins a waiting Alert with a new one: fingerprints and tasks
// once each, so a long outage files one notice, not one per trip.
func mergeAlert(old, al Alert) Alert {
	if old.Repo == "" {
		return al
	}
	old.Fingerprints = appendNew(old.Fingerprints, al.Fingerprints...)
	old.Tasks = appendNew(old.Tasks, al.Tasks...)
	old.Installation = al.Installation
	return old
}

// RetryPending files the Alerts waiting in the data directory, every
// interval, until ctx ends.
func (s *Filer) RetryPending(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.flush(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Filer) flush(ctx context.Context) {
	files, _ := filepath.Glob(filepath.Join(s.Dir, "paused-*.json"))
	for _, f := range files {
		var al Alert
		b, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(b, &al) != nil || al.Repo == "" {
			continue
		}
		if err := s.fileGitHub(ctx, al); err != nil {
			s.Log.Debug("waiting systemic Alert still not filed", "repo", al.Repo, "err", err)
			continue
		}
		s.Log.Info("waiting systemic Alert filed on GitHub", "repo", al.Repo)
		_ = os.Remove(f)
	}
}

// appendNew appends the values list does not hold yet.
func appendNew(list []string, vs ...string) []string {
	for _, v := range vs {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}
