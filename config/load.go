package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"time"
)

// Error is a bad setting; cmd/bot exits 2 with it. It names the variable.
type Error struct {
	Setting string
	Msg     string
}

func (e *Error) Error() string { return e.Setting + ": " + e.Msg }

type field struct {
	name, env, flag, def, help string
	secret                     bool
	value                      reflect.Value
}

func fields(c *Config) []field {
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	out := make([]field, 0, t.NumField())
	for i := range t.NumField() {
		sf := t.Field(i)
		out = append(out, field{
			name: sf.Name, env: sf.Tag.Get("env"), flag: sf.Tag.Get("flag"),
			def: sf.Tag.Get("default"), help: sf.Tag.Get("help"),
			secret: sf.Tag.Get("secret") == "true", value: v.Field(i),
		})
	}
	return out
}

// Load reads defaults, then the environment (through getenv), then flags from
// args. Flags win over the environment. It does not validate; call Validate.
func Load(args []string, getenv func(string) string, stderr io.Writer) (*Config, []string, error) {
	c := &Config{}
	fs := flag.NewFlagSet("bot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	raw := map[string]*string{}
	for _, f := range fields(c) {
		val := f.def
		if e := getenv(f.env); e != "" {
			val = e
		}
		raw[f.env] = fs.String(f.flag, val, f.help+" ("+f.env+")")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) { // --help printed the settings: not a bad one
			return nil, nil, err
		}
		return nil, nil, &Error{Setting: "flags", Msg: err.Error()}
	}
	for _, f := range fields(c) {
		if err := set(f.value, *raw[f.env]); err != nil {
			return nil, nil, &Error{Setting: f.env, Msg: err.Error()}
		}
	}
	return c, fs.Args(), nil
}

func set(v reflect.Value, s string) error {
	switch v.Interface().(type) {
	case string:
		v.SetString(s)
	case int, int64:
		if s == "" {
			v.SetInt(0)
			return nil
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", s)
		}
		v.SetInt(n)
	case time.Duration:
		if s == "" {
			v.SetInt(0)
			return nil
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration like 30s or 10m", s)
		}
		v.SetInt(int64(d))
	default:
		return errors.New("unsupported setting type")
	}
	return nil
}
