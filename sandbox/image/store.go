// Package image gives the sandbox a root file system from an OCI image: it
// resolves a reference to a digest, pulls through the egress policy
// (registry.go) with the standard Docker credentials only for registries
// the operator named (never an installation token), verifies every byte
// against its digest (verify.go), and unpacks each digest once into a
// content-addressed cache with a size cap and garbage collection.
// An image is untrusted input: see unpack.go for what is refused.
package image

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/warden-bot/warden/sandbox/egress"
)

// Root is an unpacked image: its root file system and the environment its
// configuration sets (PATH and the like; the entrypoint is never used).
type Root struct {
	Ref    string   // as the repository named it
	Digest string   // repository@sha256:…, what the outcome record keeps
	Dir    string   // the root file system, read-only for every command
	Env    []string // the image's Config.Env
	Pull   Pulled   // what the pull that returned it did
}

// Store is the content-addressed cache of unpacked images.
type Store struct {
	Dir           string // <data>/images
	MaxLayerBytes int64  // one layer, compressed and uncompressed; default 2 GiB
	MaxImageBytes int64  // one unpacked image; default 8 GiB
	MaxCacheBytes int64  // all unpacked images; GC removes the least recently used beyond it; default 20 GiB
	// Registries is WARDEN_IMAGE_REGISTRIES: when set, images come only
	// from these (host[:port]); a registry named here may be at any
	// address, any other only at public ones; Keychain is used only for these.
	Registries []string
	Keychain   authn.Keychain         // nil: authn.DefaultKeychain
	Check      func(netip.Addr) error // the address check of registries not named; nil: egress.Reachable
	Resolver   egress.Resolver        // nil: net.DefaultResolver
	Log        *slog.Logger

	mu    sync.Mutex
	locks map[string]*sync.Mutex
	inUse map[string]int

	lastGC     time.Time
	collecting bool
}

// ErrRefused wraps every reason an image is not used: it is hostile, too
// big, does not match its digest, or comes from a registry not allowed.
var ErrRefused = errors.New("image refused")

func (s *Store) limits() (layer, image, cache int64) {
	layer, image, cache = s.MaxLayerBytes, s.MaxImageBytes, s.MaxCacheBytes
	if layer <= 0 {
		layer = 2 << 30
	}
	if image <= 0 {
		image = 8 << 30
	}
	if cache <= 0 {
		cache = 20 << 30
	}
	return layer, image, cache
}

// Pull resolves ref to a verified digest and returns its unpacked root,
// unpacking it on first use. The caller calls Release(root) when its
// command ended. Every pull is logged; an error is a *PullError saying
// what the pull did.
func (s *Store) Pull(ctx context.Context, ref string) (Root, error) {
	p := Pulled{Image: ref, Verdict: VerdictFailed}
	root, err := s.pull(ctx, ref, &p)
	switch {
	case errors.Is(err, ErrRefused):
		p.Verdict, p.Reason = VerdictRefused, err.Error()
	case err != nil:
		p.Reason = err.Error()
	}
	s.logger().Info("image pull", "image", p.Image, "registry", p.Registry, "digest", p.Digest,
		"bytes", p.Bytes, "verdict", p.Verdict, "reason", p.Reason)
	if err != nil {
		return Root{}, &PullError{Pulled: p, Err: err}
	}
	root.Pull = p
	return root, nil
}

func (s *Store) pull(ctx context.Context, ref string, p *Pulled) (Root, error) {
	r, err := name.ParseReference(ref)
	if err != nil {
		return Root{}, fmt.Errorf("%w: image %q: %v", ErrRefused, ref, err)
	}
	p.Registry = r.Context().RegistryStr()
	if len(s.Registries) > 0 && !s.named(p.Registry) {
		return Root{}, fmt.Errorf("%w: registry %s is not one of %s", ErrRefused, p.Registry, RegistriesEnv)
	}
	g := &dialGuard{s: s}
	defer func() { p.Bytes = g.bytesIn.Load() }()
	opts := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(s.keychain(p.Registry)), remote.WithTransport(g.transport())}
	img, digest, err := resolve(r, opts)
	if err != nil {
		return Root{}, refusedFirst(g, err)
	}
	p.Digest = r.Context().Name() + "@" + digest.String()
	root := Root{Ref: ref, Digest: p.Digest}
	dir := filepath.Join(s.Dir, digest.Algorithm+"-"+digest.Hex)
	lock := s.lock(dir)
	lock.Lock()
	defer lock.Unlock()
	cached, err := s.ensure(ctx, img, dir)
	if err != nil {
		return Root{}, refusedFirst(g, err)
	}
	p.Verdict = VerdictPulled
	if cached {
		p.Verdict = VerdictCached
	}
	root.Dir = filepath.Join(dir, "rootfs")
	if root.Env, err = readEnv(dir); err != nil {
		return Root{}, err
	}
	s.acquire(dir)
	now := time.Now()
	_ = os.Chtimes(filepath.Join(dir, "used"), now, now)
	return root, nil
}

// refusedFirst: a connection the policy refused is why the pull failed,
// whatever the registry client made of it.
func refusedFirst(g *dialGuard, err error) error {
	if r := g.refusal(); r != nil && !errors.Is(err, ErrRefused) {
		return fmt.Errorf("%w (%v)", r, err)
	}
	return err
}

// ensure unpacks img into dir unless a complete copy is there (cached).
// It unpacks into a staging directory and publishes it by renaming only
// once every layer was verified: a failure leaves no entry.
func (s *Store) ensure(ctx context.Context, img v1.Image, dir string) (cached bool, err error) {
	if _, err := os.Stat(filepath.Join(dir, "used")); err == nil {
		return true, nil
	}
	m, err := img.Manifest() // its bytes were verified by resolve
	if err != nil {
		return false, fmt.Errorf("image manifest: %w", err)
	}
	cf, err := verifiedConfig(img, m)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return false, fmt.Errorf("image cache: %w", err)
	}
	tmp, err := os.MkdirTemp(s.Dir, ".unpack-")
	if err != nil {
		return false, fmt.Errorf("image cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	layer, total, _ := s.limits()
	if err := unpackImage(ctx, img, m, filepath.Join(tmp, "rootfs"), layer, total); err != nil {
		return false, err
	}
	if err := mountPoints(filepath.Join(tmp, "rootfs")); err != nil {
		return false, err
	}
	env, _ := json.Marshal(cf.Config.Env)
	if err := os.WriteFile(filepath.Join(tmp, "env.json"), env, 0o600); err != nil {
		return false, fmt.Errorf("image cache: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "used"), nil, 0o600); err != nil {
		return false, fmt.Errorf("image cache: %w", err)
	}
	_ = os.RemoveAll(dir) // an incomplete copy from a crash
	if err := os.Rename(tmp, dir); err != nil {
		return false, fmt.Errorf("image cache: %w", err)
	}
	return false, nil
}

// resolverFiles are laid over from the worker by the sandbox (a command with
// network resolves names as the worker does). Images built by Docker often
// lack them, and a read-only /etc cannot gain a mount point later.
var resolverFiles = []string{"etc/resolv.conf", "etc/hosts"}

// mountPoints makes each resolver file an empty regular file of the image
// (replacing a link, which bubblewrap would follow), and /etc a directory.
func mountPoints(rootfs string) error {
	etc := filepath.Join(rootfs, "etc")
	if fi, err := os.Lstat(etc); err != nil || !fi.IsDir() {
		_ = os.RemoveAll(etc)
		if err := os.Mkdir(etc, 0o755); err != nil {
			return fmt.Errorf("image /etc: %w", err)
		}
	}
	for _, f := range resolverFiles {
		p := filepath.Join(rootfs, f)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			continue
		}
		_ = os.RemoveAll(p)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return fmt.Errorf("image %s: %w", f, err)
		}
	}
	return nil
}

func readEnv(dir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "env.json"))
	if err != nil {
		return nil, fmt.Errorf("image env: %w", err)
	}
	var env []string
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("image env: %w", err)
	}
	return env, nil
}

func (s *Store) lock(dir string) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.locks == nil {
		s.locks = map[string]*sync.Mutex{}
	}
	if s.locks[dir] == nil {
		s.locks[dir] = &sync.Mutex{}
	}
	return s.locks[dir]
}
