package environment

import (
	"context"
	"errors"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox/image"
)

// PullImage makes the repository's image, if it has one, the root file
// system of its commands. A refused image (hostile, too big, not matching
// its digest, from a registry not allowed) blocks the attempt naming the
// image and the reason; a registry that cannot be reached is transient.
// Every pull goes on the outcome record.
func (e *Env) PullImage(ctx context.Context) error {
	if e.plan.Image == "" || e.root.Dir != "" { // a fresh start after a corrupt worktree keeps it
		return nil
	}
	if e.Images == nil {
		e.Log.Warn("image named but this process pulls none; commands run on the worker's system", "image", e.plan.Image)
		return nil
	}
	root, err := e.Images.Pull(ctx, e.plan.Image)
	e.recordPull(root, err)
	switch {
	case errors.Is(err, image.ErrRefused):
		return blocked("The image `"+e.plan.Image+"` (from `"+e.plan.ImageFrom+"`) was refused: "+err.Error()+".",
			"name an image from an allowed registry (WARDEN_IMAGE_REGISTRIES, else any at a public address) whose manifest, config and layers match their digests, with layers that stay inside their root, no device nodes, and under the size caps")
	case err != nil:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &outcome.Error{Class: outcome.Transient, Stage: StageSetup, Msg: "pull the image " + e.plan.Image + ": " + err.Error(), Err: err}
	}
	e.root = root
	e.Log.Info("image ready", "image", e.plan.Image, "digest", root.Digest)
	e.line(environmentLine(e.plan) + " · digest `" + root.Digest + "`")
	return nil
}

// recordPull keeps what the pull did for the outcome record.
func (e *Env) recordPull(root image.Root, err error) {
	p := root.Pull
	var pe *image.PullError
	if errors.As(err, &pe) {
		p = pe.Pulled
	} else if err != nil {
		p = image.Pulled{Image: e.plan.Image, Verdict: image.VerdictFailed, Reason: err.Error()}
	}
	e.pulls = append(e.pulls, outcome.ImagePull{Image: p.Image, Registry: p.Registry, Digest: p.Digest,
		Bytes: p.Bytes, Verdict: p.Verdict, Reason: p.Reason})
}

// ReleaseImage lets the image store reclaim the attempt's root.
func (e *Env) ReleaseImage() {
	if e.root.Dir != "" && e.Images != nil {
		e.Images.Release(e.root)
	}
}
