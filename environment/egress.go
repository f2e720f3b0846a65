package environment

import (
	"sync"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/sandbox/egress"
)

// maxEgress bounds the connections kept on the outcome record (a comment
// on the issue); `bot observe` and the log see all of them.
const maxEgress = 50

// egressLog collects the connections an attempt's sandboxes asked for.
type egressLog struct {
	mu      sync.Mutex
	conns   []outcome.Egress
	dropped int
}

func (l *egressLog) add(stage string, c egress.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) >= maxEgress {
		l.dropped++
		return
	}
	l.conns = append(l.conns, outcome.Egress{Stage: stage, Host: c.Host, Port: c.Port, Verdict: c.Verdict,
		Reason: c.Reason, BytesOut: c.BytesOut, BytesIn: c.BytesIn})
}

func (l *egressLog) list() []outcome.Egress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]outcome.Egress(nil), l.conns...)
}

// Egress is the connections asked of the egress proxy, for the record.
func (e *Env) Egress() []outcome.Egress { return e.egress.list() }

// EgressFor is the egress policy of a command of stage: the repository's
// `network.allow` (on top of WARDEN_EGRESS_ALLOW, which the sandbox adds)
// and the operator's package mirrors, every connection logged on the
// record and in `bot observe`.
func (e *Env) EgressFor(stage string) sandbox.EgressPolicy {
	return sandbox.EgressPolicy{Allow: e.cfg.Network.Allow, Mirrors: e.Mirrors.Hosts(), OnConn: func(c egress.Conn) {
		e.egress.add(stage, c)
		e.Log.Info("sandbox egress", "stage", stage, "host", c.Host, "port", c.Port, "verdict", c.Verdict,
			"reason", c.Reason, "bytes_out", c.BytesOut, "bytes_in", c.BytesIn)
		if e.Hooks.Egress != nil {
			e.Hooks.Egress(stage, c)
		}
	}}
}
