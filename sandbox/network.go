package sandbox

// Network is what a sandboxed process may reach. It is the only network
// choice a caller has; what Egress means is decided here alone.
type Network int

const (
	// NoNetwork: the sandbox's own network namespace with nothing in it
	// but loopback (and Warden's sockets a profile binds in).
	NoNetwork Network = iota
	// Egress: the repository's or operator's opt-in (`setup:`,
	// `network: true`, the exec agent).
	Egress
)

func (n Network) String() string {
	if n == Egress {
		return "egress"
	}
	return "none"
}

// apply sets up s for the policy.
//
// Egress is, for now, the host's network namespace shared as it is
// (bubblewrap's --share-net): the egress proxy of issue #26 replaces this
// function's Egress case and nothing else.
func (n Network) apply(s *spec) {
	if n == Egress {
		s.bwrap = append(s.bwrap, "--share-net")
	}
}
