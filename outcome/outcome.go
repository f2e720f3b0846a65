// Package outcome is Warden's vocabulary for how an attempt ended: the outcome,
// the failure class, the context learned on the way, and the machine-readable
// record posted on the issue. It is a leaf: it imports nothing of Warden's.
package outcome

// Kind is what happened to an attempt, in the words of CONTRACT §7.
type Kind string

// The outcomes an attempt can end with.
const (
	Completed  Kind = "completed"
	Deferred   Kind = "deferred"
	Decomposed Kind = "decomposed"
	Blocked    Kind = "blocked"
	Retryable  Kind = "retryable"
	Escalated  Kind = "escalated"
)

// Class says why an attempt failed; empty on success.
type Class string

// The failure classes of CONTRACT §7.
const (
	None            Class = ""
	Transient       Class = "transient"
	Deterministic   Class = "deterministic"
	BudgetExhausted Class = "budget_exhausted"
	ContractFailure Class = "contract_failure"
	TestFailure     Class = "test_failure"
	GuardViolation  Class = "guard_violation"
	Hollow          Class = "hollow"
	Canceled        Class = "canceled"
	// Flaky is the class of a flaky test's fingerprint; an attempt whose
	// only test failures were flaky completes with them named in Tests.
	Flaky Class = "flaky"
)

// Goal statuses a review can return (CONTRACT §10).
const (
	GoalAchieved    = "achieved"
	GoalPartial     = "partial"
	GoalNotAchieved = "not_achieved"
	GoalHollow      = "hollow"
)

// Obstacle is what stood in the way, as the planner or the pipeline saw it.
type Obstacle struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
	Task   string `json:"task"`
}

// Record is the hidden, machine-readable part of an outcome comment
// (`<!-- warden:outcome {...} -->`). Field names are the contract; add, never rename.
type Record struct {
	V              int      `json:"v"`
	Outcome        Kind     `json:"outcome"`
	FailureClass   Class    `json:"failure_class"`
	Fingerprint    string   `json:"fingerprint"`
	Attempt        int      `json:"attempt"`
	Mode           string   `json:"mode"`
	Stage          string   `json:"stage,omitempty"`
	Approach       string   `json:"approach"`
	Obstacle       Obstacle `json:"obstacle"`
	Discoveries    []string `json:"discoveries"`
	Recommendation string   `json:"recommendation"`
	Files          []string `json:"files"`
	PR             int      `json:"pr"`
	CostUSD        float64  `json:"cost_usd"`
	Tokens         int      `json:"tokens"`
	// SpentUSD is the task's model spend so far, all attempts; BudgetUSD its limit (budget_usd).
	SpentUSD   float64 `json:"spent_usd"`
	BudgetUSD  float64 `json:"budget_usd"`
	GoalStatus string  `json:"goal_status"`
	// Summary is one human sentence on what happened; Missing is what a review
	// said was still missing. Neither is needed by machines but both help the next attempt.
	Summary string `json:"summary,omitempty"`
	Missing string `json:"missing,omitempty"`
	Repeat  int    `json:"repeat,omitempty"`

	// Branch is the branch, named once: later attempts reuse it
	// whatever happened to the title, so they update the same PR.
	Branch string `json:"branch,omitempty"`

	// Tests tells the change's test failures from the base's and flaky ones
	// (tests.go); absent when no baseline ran.
	Tests *Tests `json:"tests,omitempty"`

	// Image is the digest (repository@sha256:…) of the image the attempt's
	// commands ran in; empty: the worker's own system (CONTRACT §12).
	Image string `json:"image,omitempty"`

	// Egress are the connections this attempt's sandboxes asked Warden's
	// egress proxy for (the first maxEgress), allowed or not.
	Egress []Egress `json:"egress,omitempty"`

	// Images are the attempt's image pulls, refused or failed ones too.
	Images []ImagePull `json:"images,omitempty"`

	// Guidance is what writers told this attempt with `/warden steer`, in
	// the order it reached the run (guidance.go).
	Guidance []Guidance `json:"guidance,omitempty"`
}

// ImagePull is one image pull: the reference as named, its registry, the
// verified digest, the bytes received and the verdict (pulled, cached,
// refused or failed) with its reason.
type ImagePull struct {
	Image    string `json:"image"`
	Registry string `json:"registry"`
	Digest   string `json:"digest,omitempty"`
	Bytes    int64  `json:"bytes"`
	Verdict  string `json:"verdict"`
	Reason   string `json:"reason,omitempty"`
}

// Egress is one connection a sandbox asked for.
type Egress struct {
	Stage    string `json:"stage"`
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Verdict  string `json:"verdict"` // allowed, denied or failed
	Reason   string `json:"reason,omitempty"`
	BytesOut int64  `json:"bytes_out"`
	BytesIn  int64  `json:"bytes_in"`
}

// Normalize fills the fields the contract requires to be present (lists as
// [] rather than null, the version) so every record has the same shape.
func (r Record) Normalize() Record {
	r.V = 1
	if r.Discoveries == nil {
		r.Discoveries = []string{}
	}
	if r.Files == nil {
		r.Files = []string{}
	}
	r.Tests = r.Tests.Normalize()
	return r
}
