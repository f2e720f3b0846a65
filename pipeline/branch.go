package pipeline

import (
	"fmt"
	"strings"

	"github.com/warden-bot/warden/guards"
)

// branch is the issue's branch: the one its earlier attempts recorded, so
// that an edited title never moves the work to a second branch and PR;
// only the first attempt names it from the title. A recorded name that is
// not this issue's (`<prefix>/<n>-…`) or not a valid ref is ignored.
func (a *attempt) branch() string {
	own := fmt.Sprintf("%s/%d-", a.p.Prefix, a.t.Issue)
	for i := len(a.prior) - 1; i >= 0; i-- {
		b := a.prior[i].Branch
		if strings.HasPrefix(b, own) && guards.ValidBranch(b) == nil {
			return b
		}
	}
	return guards.BranchName(a.p.Prefix, a.t.Issue, a.t.Title)
}
