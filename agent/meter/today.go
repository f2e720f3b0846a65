package meter

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// DaySpend is one repository's or installation's spend today (UTC) against its cap.
type DaySpend struct {
	Scope string // "repo owner/name" or "installation 42"
	USD   float64
	Cap   float64 // 0: no cap
}

// Day is today's date (UTC) as the ledger's keys spell it.
func (l *Ledger) Day() string { return l.now().UTC().Format("2006-01-02") }

// Today lists today's spend per repository and per installation, for /ui.
func (l *Ledger) Today(ctx context.Context) ([]DaySpend, error) {
	day := l.now().UTC().Format("2006-01-02")
	var out []DaySpend
	for _, kind := range []struct {
		name string
		cap  float64
	}{{"repo", l.RepoDaily}, {"installation", l.InstallationDaily}} {
		prefix := "warden:spend:" + kind.name + ":"
		iter := l.RDB.Scan(ctx, 0, prefix+"*:"+day, 500).Iterator()
		for iter.Next(ctx) {
			key := iter.Val()
			v, err := l.RDB.Get(ctx, key).Result()
			if err != nil {
				continue
			}
			usd, _ := strconv.ParseFloat(v, 64)
			name := strings.TrimSuffix(strings.TrimPrefix(key, prefix), ":"+day)
			out = append(out, DaySpend{Scope: kind.name + " " + name, USD: usd, Cap: kind.cap})
		}
		if err := iter.Err(); err != nil {
			return nil, fmt.Errorf("list today's spend: %w", err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].USD > out[j].USD })
	return out, nil
}
