package sandbox

// Network is what a sandboxed process may reach. It is the only network
// choice a caller has; what Egress means is decided here alone.
type Network int

const (
	// NoNetwork: the sandbox's own network namespace with nothing in it
	// but loopback (and Warden's sockets a profile binds in).
	NoNetwork Network = iota
	// Egress: the repository's or operator's opt-in (`setup:`,
	// `network: true`, the exec agent): still the sandbox's own network
	// namespace, whose only way out is Warden's egress proxy (egress.go),
	// public addresses only.
	Egress
)

func (n Network) String() string {
	if n == Egress {
		return "egress"
	}
	return "none"
}

// apply sets up s for the policy. Egress never shares the worker's network
// namespace (no --share-net: its loopback holds Redis); run starts the
// proxy and binds it in (withEgress).
func (n Network) apply(s *spec, pol EgressPolicy) {
	if n == Egress {
		s.egress = &pol
	}
}
