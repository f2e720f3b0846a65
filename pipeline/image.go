package pipeline

import (
	"context"
	"errors"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox/image"
)

// pullImage makes the repository's image, if it has one, the root file
// system of its commands. A refused image (hostile, too big) blocks the
// attempt with the reason; a registry that cannot be reached is transient.
func (a *attempt) pullImage(ctx context.Context) error {
	if a.cmds.Image == "" || a.root.Dir != "" { // a fresh start after a corrupt worktree keeps it
		return nil
	}
	if a.p.Images == nil {
		a.log.Warn("image named but this process pulls none; commands run on the worker's system", "image", a.cmds.Image)
		return nil
	}
	root, err := a.p.Images.Pull(ctx, a.cmds.Image)
	switch {
	case errors.Is(err, image.ErrRefused):
		return blocked("The image `"+a.cmds.Image+"` (from `"+a.cmds.ImageFrom+"`) was refused: "+err.Error()+".",
			"name an image whose layers stay inside their root, with no device nodes and layers under the size cap")
	case err != nil:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &outcome.Error{Class: outcome.Transient, Stage: StageSetup, Msg: "pull the image " + a.cmds.Image + ": " + err.Error(), Err: err}
	}
	a.root = root
	a.log.Info("image ready", "image", a.cmds.Image, "digest", root.Digest)
	a.tr.setEnvironment(environmentLine(a.cmds) + " · digest `" + root.Digest + "`")
	return nil
}

func (a *attempt) releaseImage() {
	if a.root.Dir != "" && a.p.Images != nil {
		a.p.Images.Release(a.root)
	}
}
