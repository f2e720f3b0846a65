package modes

import (
	"reflect"
	"strings"
	"testing"
)

func TestNetworkForms(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want Network
	}{
		{"test: go test ./...\n", Network{}},
		{"network: false\n", Network{}},
		{"network: true\n", Network{On: true}},
		{"network:\n  allow: [\"pkgs.example.org\", \"*.example.net\"]\n", Network{On: true, Allow: []string{"pkgs.example.org", "*.example.net"}}},
	} {
		cfg, err := Parse([]byte(tc.yaml))
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		if !reflect.DeepEqual(cfg.Network, tc.want) {
			t.Errorf("%q: network = %+v, want %+v", tc.yaml, cfg.Network, tc.want)
		}
	}
}

func TestNetworkRejectsBadPolicies(t *testing.T) {
	for yml, key := range map[string]string{
		"network: yes please\n":                      "network",
		"network: {allow: pkgs.example.org}\n":       "network.allow",
		"network: {allow: [\"http://x.org/\"]}\n":    "network.allow",
		"network: {allow: [\"x.org:443\"]}\n":        "network.allow",
		"network: {allow: [\"*\"]}\n":                "network.allow",
		"network: {allow: [\"x.org\"], deny: [y]}\n": "network.deny",
		"network: [x.org]\n":                         "network",
	} {
		_, err := Parse([]byte(yml))
		var ce *ConfigError
		if err == nil || !asConfigError(err, &ce) || ce.Key != key {
			t.Errorf("%q: error %v, want one naming %s", strings.TrimSpace(yml), err, key)
		}
	}
}

func asConfigError(err error, ce **ConfigError) bool {
	c, ok := err.(*ConfigError)
	*ce = c
	return ok
}
