package environment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// StageBaseline names the base commit's test run in logs.
const StageBaseline = "Baseline"

// baselineTTL is how long a base commit's result is trusted: the commit
// cannot change, but a test that reads the clock or a certificate can.
const baselineTTL = 24 * time.Hour

// Baseline is the test command's result on a base commit, as cached.
type Baseline struct {
	Repo       string    `json:"repo"`
	Base       string    `json:"base"`
	Command    string    `json:"command"`
	Structured bool      `json:"structured"`
	Failed     []string  `json:"failed"`
	Output     string    `json:"output"` // cut, for the blocked message
	At         time.Time `json:"at"`
}

// Failing reports whether test id failed on the base.
func (b Baseline) Failing(id string) bool { return slices.Contains(b.Failed, id) }

// baselineKey names a result by repository, base commit and test command.
func baselineKey(repo, base, command string) string {
	sum := sha256.Sum256([]byte(repo + "\x00" + base + "\x00" + command))
	return hex.EncodeToString(sum[:12])
}

// baselineCache keeps results on the worker's disk, beside the mirrors.
type baselineCache struct{ dir string }

func (c baselineCache) path(key string) string { return filepath.Join(c.dir, key+".json") }

func (c baselineCache) get(key string, now time.Time) (Baseline, bool) {
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return Baseline{}, false
	}
	var b Baseline
	if json.Unmarshal(data, &b) != nil || now.Sub(b.At) > baselineTTL || now.Before(b.At.Add(-time.Minute)) {
		_ = os.Remove(c.path(key))
		return Baseline{}, false
	}
	return b, true
}

// put writes atomically: a reader sees a whole result or none.
func (c baselineCache) put(key string, b Baseline) error {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(b)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.dir, key+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.path(key))
}
