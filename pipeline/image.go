package pipeline

import (
	"context"
	"errors"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox/image"
)

// pullImage makes the repository's image, if it has one, the root file
// system of its commands. A refused image (hostile, too big, not matching
// its digest, from a registry not allowed) blocks the attempt naming the
// image and the reason; a registry that cannot be reached is transient.
// Every pull goes on the outcome record.
func (a *attempt) pullImage(ctx context.Context) error {
	if a.cmds.Image == "" || a.root.Dir != "" { // a fresh start after a corrupt worktree keeps it
		return nil
	}
	if a.p.Images == nil {
		a.log.Warn("image named but this process pulls none; commands run on the worker's system", "image", a.cmds.Image)
		return nil
	}
	root, err := a.p.Images.Pull(ctx, a.cmds.Image)
	a.recordPull(root, err)
	switch {
	case errors.Is(err, image.ErrRefused):
		return blocked("The image `"+a.cmds.Image+"` (from `"+a.cmds.ImageFrom+"`) was refused: "+err.Error()+".",
			"name an image from an allowed registry (WARDEN_IMAGE_REGISTRIES, else any at a public address) whose manifest, config and layers match their digests, with layers that stay inside their root, no device nodes, and under the size caps")
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

// recordPull keeps what the pull did for the outcome record.
func (a *attempt) recordPull(root image.Root, err error) {
	p := root.Pull
	var pe *image.PullError
	if errors.As(err, &pe) {
		p = pe.Pulled
	} else if err != nil {
		p = image.Pulled{Image: a.cmds.Image, Verdict: image.VerdictFailed, Reason: err.Error()}
	}
	a.pulls = append(a.pulls, outcome.ImagePull{Image: p.Image, Registry: p.Registry, Digest: p.Digest,
		Bytes: p.Bytes, Verdict: p.Verdict, Reason: p.Reason})
}

func (a *attempt) releaseImage() {
	if a.root.Dir != "" && a.p.Images != nil {
		a.p.Images.Release(a.root)
	}
}
