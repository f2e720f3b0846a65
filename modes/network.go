package modes

import (
	"path"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Network is `network:` (CONTRACT §11, §12): false (the default), true, or a
// policy `{allow: [host globs]}`. On lets test and security commands reach
// the network; Allow narrows every sandbox with network of the repository
// (setup: too) to those hosts. The way out is always Warden's egress proxy,
// public addresses only.
type Network struct {
	On    bool     `yaml:"-"`
	Allow []string `yaml:"allow"`
}

var networkType = reflect.TypeOf(Network{})

// UnmarshalYAML accepts true, false or {allow: [...]}.
func (n *Network) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind == yaml.ScalarNode {
		var on bool
		if err := node.Decode(&on); err != nil {
			return err
		}
		*n = Network{On: on}
		return nil
	}
	var p struct {
		Allow []string `yaml:"allow"`
	}
	if err := node.Decode(&p); err != nil {
		return err
	}
	*n = Network{On: true, Allow: p.Allow}
	return nil
}

// checkNetwork validates `network:` before decoding, naming the bad key.
func checkNetwork(n *yaml.Node, path string, bad func(string) error) error {
	if n.Kind == yaml.ScalarNode {
		if n.Tag != "!!bool" {
			return bad("must be true, false or {allow: [hosts]}")
		}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return bad("must be true, false or {allow: [hosts]}")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value != "allow" {
			return &ConfigError{Key: strings.TrimPrefix(path+"."+k.Value, "."), Line: k.Line, Msg: "unknown key"}
		}
		if err := checkAllow(v, path+".allow"); err != nil {
			return err
		}
	}
	return nil
}

func checkAllow(v *yaml.Node, key string) error {
	key = strings.TrimPrefix(key, ".")
	if v.Kind != yaml.SequenceNode {
		return &ConfigError{Key: key, Line: v.Line, Msg: "must be a list of host names or globs like *.example.org"}
	}
	for _, item := range v.Content {
		if item.Kind != yaml.ScalarNode || item.Tag != "!!str" || !validHostGlob(item.Value) {
			return &ConfigError{Key: key, Line: item.Line, Msg: "must be a host name or a glob like *.example.org, not " + item.Value}
		}
	}
	return nil
}

// validHostGlob: letters, digits, dots, dashes and `*`; no ports, paths or schemes.
func validHostGlob(g string) bool {
	if g == "" || strings.Trim(g, "*.") == "" {
		return false
	}
	for _, r := range g {
		if !(r == '.' || r == '-' || r == '*' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	_, err := path.Match(g, "x")
	return err == nil
}
