// Package egress is the only way out of a sandbox with network: an HTTP
// proxy (plain requests and CONNECT) that Warden runs on a Unix socket bound
// into the sandbox, whose own network namespace has nothing but loopback.
// It reaches public addresses only — never loopback, link-local (cloud
// metadata), private, shared, multicast or reserved ranges, or the worker's
// own interface addresses — checked after name resolution, and it dials
// exactly the address it checked, so a name that resolves differently the
// second time (DNS rebinding) gains nothing. An optional allow-list of host
// globs narrows it further. Every connection is reported with its host,
// port, bytes and verdict.
package egress

import (
	"fmt"
	"net"
	"net/netip"
	"path"
	"strings"
)

// nonPublic are the ranges no sandbox may reach, beyond what netip's
// predicates name: shared address space (carrier-grade NAT), IETF protocol
// assignments, benchmarking, documentation and reserved ranges, and the
// IPv6 prefixes that embed or translate to IPv4 (IPv4-compatible,
// IPv4-mapped and -translated, NAT64, 6to4, Teredo), where a private IPv4
// address could hide, and the deprecated site-local fec0::/10.
var nonPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4",
		"::/96",           // IPv4-compatible (::a.b.c.d)
		"::ffff:0:0/96",   // IPv4-mapped
		"::ffff:0:0:0/96", // IPv4-translated (SIIT)
		"fec0::/10",       // site-local, deprecated
		"64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/32", "2001:db8::/32", "2002::/16",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Public reports whether a is an address a sandbox may reach: a global
// unicast address outside every private, shared and reserved range. An
// IPv4-mapped address is not judged as its IPv4 address: Reachable and the
// proxy unmap what they resolve before they ask.
func Public(a netip.Addr) bool {
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() ||
		a.IsLinkLocalUnicast() || a.IsMulticast() || a.IsUnspecified() || a.Zone() != "" {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// ownAddrs are the worker's interface addresses: a service bound to one of
// them is as much the host's as one on loopback.
func ownAddrs() ([]netip.Addr, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("list interface addresses: %w", err)
	}
	var out []netip.Addr
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out = append(out, p.Addr().Unmap())
		}
	}
	return out, nil
}

// Reachable is the default address check: public and not the worker's own.
// An error listing the worker's addresses fails closed.
func Reachable(a netip.Addr) error {
	a = a.Unmap()
	if !Public(a) {
		return fmt.Errorf("%s is not a public address", a)
	}
	own, err := ownAddrs()
	if err != nil {
		return err
	}
	for _, o := range own {
		if o == a {
			return fmt.Errorf("%s is the worker's own address", a)
		}
	}
	return nil
}

// Allowed reports whether host matches one of the globs (`pkgs.example.org`,
// `*.example.net`); an empty list allows every host. Matching ignores case
// and a trailing dot; `*` matches one or more labels.
func Allowed(host string, globs []string) bool {
	if len(globs) == 0 {
		return true
	}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	for _, g := range globs {
		g = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(g)), ".")
		if g == "" {
			continue
		}
		if ok, err := path.Match(g, h); err == nil && ok {
			return true
		}
	}
	return false
}

// SplitAllow parses WARDEN_EGRESS_ALLOW: comma-separated globs.
func SplitAllow(s string) []string {
	var out []string
	for _, g := range strings.Split(s, ",") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}
