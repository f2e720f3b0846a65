package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// path is where a repository's unfiled alert waits.
func (s *systemic) path(repo string) string {
	return filepath.Join(s.dir, "paused-"+strings.ReplaceAll(repo, "/", "__")+".json")
}

func (s *systemic) load(repo string) alert {
	var al alert
	if b, err := os.ReadFile(s.path(repo)); err == nil {
		_ = json.Unmarshal(b, &al)
	}
	return al
}

// save writes the alert atomically: a crash leaves the old file or the new one.
func (s *systemic) save(al alert) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
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

// mergeAlert joins a waiting alert with a new one: fingerprints and tasks
// once each, so a long outage files one notice, not one per trip.
func mergeAlert(old, al alert) alert {
	if old.Repo == "" {
		return al
	}
	old.Fingerprints = appendNew(old.Fingerprints, al.Fingerprints...)
	old.Tasks = appendNew(old.Tasks, al.Tasks...)
	old.Installation = al.Installation
	return old
}

// retryPending files the alerts waiting in the data directory, every
// interval, until ctx ends.
func (s *systemic) retryPending(ctx context.Context, interval time.Duration) {
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

func (s *systemic) flush(ctx context.Context) {
	files, _ := filepath.Glob(filepath.Join(s.dir, "paused-*.json"))
	for _, f := range files {
		var al alert
		b, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(b, &al) != nil || al.Repo == "" {
			continue
		}
		if err := s.fileGitHub(ctx, al); err != nil {
			s.a.log.Debug("waiting systemic alert still not filed", "repo", al.Repo, "err", err)
			continue
		}
		s.a.log.Info("waiting systemic alert filed on GitHub", "repo", al.Repo)
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
