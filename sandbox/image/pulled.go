package image

// Pulled is what one pull did, as the log and the outcome record keep it.
type Pulled struct {
	Image    string // the reference as named
	Registry string // its registry, host[:port]
	Digest   string // repository@sha256:… of the verified manifest; empty before it was
	Bytes    int64  // bytes received from the network
	Verdict  string // pulled, cached, refused or failed
	Reason   string // why it was refused or failed
}

// Verdicts of a pull.
const (
	VerdictPulled  = "pulled"  // fetched, verified and unpacked
	VerdictCached  = "cached"  // the manifest verified; its unpacked copy was there
	VerdictRefused = "refused" // ErrRefused: hostile, too big, not matching its digest, or a registry not allowed
	VerdictFailed  = "failed"  // the registry could not be reached or answered an error
)

// PullError is a pull that returned no root, with what it did.
type PullError struct {
	Pulled Pulled
	Err    error
}

func (e *PullError) Error() string { return e.Err.Error() }
func (e *PullError) Unwrap() error { return e.Err }
