// Package e2e drives the real bot binary against the project's fake GitHub,
// fake model server, real Redis and real git, through CONTRACT.md only.
package e2e

import (
	"testing"

	tw "github.com/warden-bot/warden/test/world"
)

// world adds this package's own helpers to the shared test world.
type world struct{ *tw.World }

type option = tw.Option

func newWorld(t *testing.T, files map[string]string, opts ...option) *world {
	t.Helper()
	return &world{tw.New(t, files, opts...)}
}

const (
	secret = tw.Secret
	owner  = tw.Owner
	name   = tw.Name
	repo   = tw.Repo
	inst   = tw.Inst
)

var (
	calcRepo    = tw.CalcRepo
	withFiles   = tw.WithFiles
	withConfig  = tw.WithConfig
	chaosBinary = tw.Chaos
	happyScript = tw.HappyScript
	redScript   = tw.RedScript
	text        = tw.Text
	tail        = tw.Tail
)

const (
	planReply  = tw.PlanReply
	fixBlock   = tw.FixBlock
	wrongBlock = tw.WrongBlock
	achieved   = tw.Achieved
)
