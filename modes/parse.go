package modes

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ConfigError names the key and line of a bad setting in .github/warden.yml.
type ConfigError struct {
	Key  string
	Line int
	Msg  string
}

func (e *ConfigError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf(".github/warden.yml:%d: %s: %s", e.Line, e.Key, e.Msg)
	}
	return fmt.Sprintf(".github/warden.yml: %s: %s", e.Key, e.Msg)
}

// Parse reads .github/warden.yml over the defaults. An empty or missing file
// is the defaults. Unknown keys, wrong types and values past the ceilings are
// errors that name the key (fail closed: a typo must not loosen a guard).
func Parse(data []byte) (Config, error) {
	cfg := Default()
	if len(strings.TrimSpace(string(data))) == 0 {
		return cfg, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return cfg, &ConfigError{Key: "(file)", Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if len(doc.Content) == 0 {
		return cfg, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return cfg, &ConfigError{Key: "(file)", Line: root.Line, Msg: "must be a mapping of settings"}
	}
	if err := check(root, reflect.TypeOf(cfg), ""); err != nil {
		return cfg, err
	}
	defaults := cfg.ProtectedPaths
	cfg.ProtectedPaths = nil // decoding would replace the defaults: protected_paths only adds
	if err := root.Decode(&cfg); err != nil {
		return cfg, &ConfigError{Key: "(file)", Msg: err.Error()}
	}
	protected, err := unprotect(mergeProtected(append(defaults, cfg.ProtectedPaths...)), cfg.Unprotect, root)
	if err != nil {
		return cfg, err
	}
	cfg.ProtectedPaths = protected
	if err := checkMergeMethod(cfg.MergeMethod, root); err != nil {
		return cfg, err
	}
	return cfg, bounds(cfg, root)
}

var (
	durationType = reflect.TypeOf(time.Duration(0))
	retryType    = reflect.TypeOf(Retry{})
)

// check walks the YAML tree against the Config type, so every error can
// name the full key path and its line.
func check(n *yaml.Node, t reflect.Type, path string) error {
	bad := func(msg string) error {
		return &ConfigError{Key: strings.TrimPrefix(path, "."), Line: n.Line, Msg: msg}
	}
	switch {
	case t == durationType:
		if _, err := time.ParseDuration(n.Value); n.Kind != yaml.ScalarNode || err != nil {
			return bad("must be a duration like 90s or 10m")
		}
	case t == networkType:
		return checkNetwork(n, path, bad)
	case t == retryType:
		if n.Kind == yaml.ScalarNode {
			if !validRetryName(n.Value) {
				return bad("must be none, standard, aggressive or patient, or {max_attempts, backoff, initial_delay, max_delay}")
			}
			return nil
		}
		return checkStruct(n, t, path, bad)
	case t.Kind() == reflect.Struct:
		return checkStruct(n, t, path, bad)
	case t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode {
			return bad("must be a mapping")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := check(n.Content[i+1], t.Elem(), path+"."+n.Content[i].Value); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return bad("must be a list")
		}
		for i, item := range n.Content {
			if err := check(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	default:
		return checkScalar(n, t.Kind(), bad)
	}
	return nil
}

func checkStruct(n *yaml.Node, t reflect.Type, path string, bad func(string) error) error {
	if n.Kind != yaml.MappingNode {
		return bad("must be a mapping")
	}
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		if tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]; tag != "" && tag != "-" {
			fields[tag] = t.Field(i).Type
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		ft, ok := fields[k.Value]
		if !ok {
			return &ConfigError{Key: strings.TrimPrefix(path+"."+k.Value, "."), Line: k.Line, Msg: "unknown key"}
		}
		if err := check(n.Content[i+1], ft, path+"."+k.Value); err != nil {
			return err
		}
	}
	return nil
}

func checkScalar(n *yaml.Node, k reflect.Kind, bad func(string) error) error {
	if n.Kind != yaml.ScalarNode {
		return bad("must be a single value")
	}
	switch k {
	case reflect.Int:
		if n.Tag != "!!int" {
			return bad("must be a whole number")
		}
	case reflect.Float64:
		if n.Tag != "!!int" && n.Tag != "!!float" {
			return bad("must be a number")
		}
	case reflect.Bool:
		if n.Tag != "!!bool" {
			return bad("must be true or false")
		}
	case reflect.String:
		if n.Tag != "!!str" && n.Tag != "!!null" {
			return bad("must be a string")
		}
	}
	return nil
}

// UnmarshalYAML accepts a policy name or explicit numbers.
func (r *Retry) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*r = Retry{Name: n.Value}
		return nil
	}
	type plain Retry
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*r = Retry(p)
	return nil
}

func validRetryName(s string) bool {
	return s == "none" || s == "standard" || s == "aggressive" || s == "patient"
}

func mergeProtected(globs []string) []string {
	out := append([]string{}, AlwaysProtected...)
	for _, g := range globs {
		if !contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// unprotect removes the globs the file's unprotect key names from the
// protected list; the always-protected paths cannot be removed.
func unprotect(protected, remove []string, root *yaml.Node) ([]string, error) {
	out := protected[:0:0]
	for _, g := range remove {
		if contains(AlwaysProtected, g) {
			return nil, &ConfigError{Key: "unprotect", Line: keyLine(root, "unprotect"), Msg: g + " is always protected and cannot be removed"}
		}
	}
	for _, g := range protected {
		if !contains(remove, g) {
			out = append(out, g)
		}
	}
	return out, nil
}

// keyLine is the line of a top-level key, or 0.
func keyLine(root *yaml.Node, key string) int {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i].Line
		}
	}
	return 0
}
