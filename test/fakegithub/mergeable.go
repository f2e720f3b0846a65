package fakegithub

// GitHub computes a PR's mergeability in the background: the PR's own GET
// answers `mergeable: null` until it is done (and after each push to the
// head or the base), then true or false; listings and the create answer
// carry no computed value. The fake answers the same way, so a client that
// took null for "mergeable" is caught: a PR answers true once computed,
// false when a test says it conflicts, and null while a test says GitHub
// is still computing.

// SetMergeable sets what GET pulls/{n} answers once computed: false for a
// conflict with the base, true, or nil for the fake's own answer (true).
func (s *Server) SetMergeable(repo string, pr int, v *bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].pulls[pr].Mergeable = v
}

// SetMergeableComputing makes the next n GETs of the PR answer
// `mergeable: null`, as while GitHub is still computing it; n < 0 answers
// null until the next call.
func (s *Server) SetMergeableComputing(repo string, pr, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].pulls[pr].Computing = n
}

// mergeable is the value a GET of p answers (the caller holds s.mu); each
// answer while computing counts down.
func mergeable(p *Pull) *bool {
	switch {
	case p.Computing < 0:
		return nil
	case p.Computing > 0:
		p.Computing--
		return nil
	case p.Mergeable != nil:
		v := *p.Mergeable
		return &v
	}
	v := true
	return &v
}
