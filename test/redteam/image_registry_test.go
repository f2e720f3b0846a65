package redteam

import (
	"archive/tar"
	"context"
	"errors"
	"net/http"
	"net/netip"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/warden-bot/warden/sandbox/image"
	it "github.com/warden-bot/warden/sandbox/image/imagetest"
)

// Threat-model row: a repository names an image on a registry of its
// choice. A pull reaches only public addresses unless the operator named
// the registry (WARDEN_IMAGE_REGISTRIES), and the worker's Docker
// credentials go only to registries the operator named.

// countRequests counts every request the registry receives.
func countRequests(n *atomic.Int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			next.ServeHTTP(w, r)
		})
	}
}

// Finding 5 (#37): `image: 127.0.0.1:PORT/x` is a request from the worker
// to a loopback service; unless the operator named the registry, nothing
// reaches it.
func TestImageLoopbackRegistryRefused(t *testing.T) {
	var n atomic.Int64
	host := it.RegistryWith(t, countRequests(&n))
	ref := it.Push(t, host+"/x:1", it.Image(t, nil, it.Layer(t, it.Entry{Header: tar.Header{Name: "f"}, Body: "x"})))
	n.Store(0)
	s := &image.Store{Dir: filepath.Join(t.TempDir(), "images"), Keychain: authn.NewMultiKeychain()}
	_, err := s.Pull(context.Background(), ref)
	if err == nil || n.Load() != 0 {
		t.Fatalf("the worker pulled from %s (%d requests reached it): %v", host, n.Load(), err)
	}
	imageRefused(t, err, "WARDEN_IMAGE_REGISTRIES")
	var pe *image.PullError
	if !errors.As(err, &pe) || pe.Pulled.Verdict != image.VerdictRefused || pe.Pulled.Registry != host {
		t.Fatalf("the pull's record: %+v", pe)
	}
	// Named by the operator, the same registry is reached.
	s.Registries = []string{host}
	if _, err := s.Pull(context.Background(), ref); err != nil || n.Load() == 0 {
		t.Fatalf("a named loopback registry: %v (%d requests)", err, n.Load())
	}
	// Named, it is the only one: another loopback registry is refused by name.
	other := it.Registry(t)
	ref2 := it.Push(t, other+"/x:1", it.Image(t, nil, it.Layer(t, it.Entry{Header: tar.Header{Name: "g"}, Body: "y"})))
	_, err = s.Pull(context.Background(), ref2)
	imageRefused(t, err, "is not one of WARDEN_IMAGE_REGISTRIES")
}

// A registry that resolves to loopback by name is refused as its address
// is: the check is on what is dialled, after resolution.
func TestImageRegistryNameResolvingToLoopbackRefused(t *testing.T) {
	var n atomic.Int64
	host := it.RegistryWith(t, countRequests(&n))
	_, port, _ := strings.Cut(host, ":")
	ref := it.Push(t, host+"/x:1", it.Image(t, nil, it.Layer(t, it.Entry{Header: tar.Header{Name: "f"}, Body: "x"})))
	n.Store(0)
	s := &image.Store{Dir: filepath.Join(t.TempDir(), "images"), Keychain: authn.NewMultiKeychain(),
		Resolver: staticResolver{"registry.example.com": netip.MustParseAddr("127.0.0.1")}}
	_, err := s.Pull(context.Background(), strings.Replace(ref, host, "registry.example.com:"+port, 1))
	imageRefused(t, err, "127.0.0.1")
	if n.Load() != 0 {
		t.Fatalf("%d requests reached the loopback registry", n.Load())
	}
}

type staticResolver map[string]netip.Addr

func (r staticResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return []netip.Addr{a}, nil
	}
	return nil, errors.New("no such host")
}

// secretKeychain answers the worker's credentials for every registry.
type secretKeychain struct{}

func (secretKeychain) Resolve(authn.Resource) (authn.Authenticator, error) {
	return authn.FromConfig(authn.AuthConfig{Username: "worker", Password: "docker-secret"}), nil
}

// recordAuth keeps every Authorization header the registry receives.
func recordAuth(seen *atomic.Int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "" {
				seen.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// Suspected in #37: any repository could name any private image the
// worker's Docker credentials can pull. The credentials go only to a
// registry the operator named; here the registry passes the address check
// (as a public one would) without being named.
func TestImageCredentialsOnlyForNamedRegistries(t *testing.T) {
	var seen atomic.Int64
	host := it.RegistryWith(t, recordAuth(&seen))
	ref := it.Push(t, host+"/private:1", it.Image(t, nil, it.Layer(t, it.Entry{Header: tar.Header{Name: "f"}, Body: "x"})))
	seen.Store(0)
	public := func(netip.Addr) error { return nil }
	s := &image.Store{Dir: filepath.Join(t.TempDir(), "images"), Keychain: secretKeychain{}, Check: public}
	if _, err := s.Pull(context.Background(), ref); err != nil {
		t.Fatal(err)
	}
	if seen.Load() != 0 {
		t.Fatalf("the worker's Docker credentials were sent %d times to %s, a registry the operator did not name", seen.Load(), host)
	}
	// The same registry named: the credentials are sent (the test sees them).
	named := &image.Store{Dir: filepath.Join(t.TempDir(), "images"), Keychain: secretKeychain{}, Registries: []string{host}}
	if _, err := named.Pull(context.Background(), ref); err != nil || seen.Load() == 0 {
		t.Fatalf("a named registry got no credentials: %v", err)
	}
}
