package outcome

// Tests is the `tests` section of a record: whose the test failures were,
// judged against a run of the same command on the base commit.
type Tests struct {
	// Base is the commit the baseline ran on; Command the test command.
	Base    string `json:"base"`
	Command string `json:"command,omitempty"`
	// PreExisting failed on the base and after the change, and are not
	// what the issue is about: not the change's.
	PreExisting []string `json:"pre_existing"`
	// Flaky failed after the change and passed on a re-run (or failed on
	// a re-run of the base): reported, never handed to the model.
	Flaky []string `json:"flaky"`
	// Caused failed after the change every time and not on the base.
	Caused []string `json:"caused"`
	// FixedUnrelated failed on the base and pass after a change that did
	// not touch what the issue is about: reported, not counted as a fix.
	FixedUnrelated []string `json:"fixed_unrelated,omitempty"`
}

// Normalize gives every list a value, so the JSON has [] rather than null.
func (t *Tests) Normalize() *Tests {
	if t == nil {
		return nil
	}
	c := *t
	for _, l := range []*[]string{&c.PreExisting, &c.Flaky, &c.Caused} {
		if *l == nil {
			*l = []string{}
		}
	}
	return &c
}
