package environment

import (
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/warden-bot/warden/environment/mirrors"
	"github.com/warden-bot/warden/sandbox/egress"
)

// offlineSigns are the words package tools print when they could not reach
// their index: a name that did not resolve, a proxy that refused, no
// version found where the index was never read.
var offlineSigns = []string{
	"Could not find a version that satisfies", "No matching distribution found", "Failed to establish a new connection",
	"ProxyError", "Temporary failure in name resolution", "Could not resolve host", "ENOTFOUND", "EAI_AGAIN",
	"ECONNREFUSED", "Network is unreachable", "dial tcp", "proxyconnect tcp", "403 Forbidden",
}

// networkFailure is the one sentence a failed setup's message becomes when
// it failed for want of the network: a connection the egress proxy refused
// or could not make, or a tool's words for an index it could not reach.
// "" when neither is seen: the failure is the setup's own.
func networkFailure(line, output string, conns []egress.Conn) string {
	var refused *egress.Conn
	for i := range conns {
		if conns[i].Verdict != egress.Allow {
			refused = &conns[i]
			break
		}
	}
	sign := ""
	for _, s := range offlineSigns {
		if strings.Contains(output, s) {
			sign = s
			break
		}
	}
	if refused == nil && sign == "" {
		return ""
	}
	what := "its package index (" + sign + ")"
	if refused != nil {
		what = net.JoinHostPort(refused.Host, strconv.Itoa(refused.Port))
		if refused.Reason != "" {
			what += " (" + refused.Reason + ")"
		}
	}
	fix := "add its host to WARDEN_EGRESS_ALLOW or to the repository's network.allow"
	if s := mirrors.SettingFor(line); s != "" {
		fix = "set " + s + " to a package mirror the workers can reach"
	}
	return "The setup command failed for want of the network: it could not reach " + what + "; " + fix + "."
}

// connLog keeps one command's connections, to explain its failure.
type connLog struct {
	mu    sync.Mutex
	conns []egress.Conn
}

func (l *connLog) add(c egress.Conn) {
	l.mu.Lock()
	l.conns = append(l.conns, c)
	l.mu.Unlock()
}

func (l *connLog) list() []egress.Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]egress.Conn(nil), l.conns...)
}
