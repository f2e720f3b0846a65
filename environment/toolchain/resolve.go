package toolchain

import (
	"encoding/json"
	"io/fs"
	"strings"
)

// Declared is what .github/warden.yml says, and the operator's default image.
type Declared struct {
	Image, Setup, Test string
	DefaultImage       string // WARDEN_DEFAULT_IMAGE
}

// Plan is what Warden uses for a repository and where each part came from
// (a file name, "WARDEN_DEFAULT_IMAGE", or "" for nothing).
type Plan struct {
	Image, ImageFrom string
	Setup, SetupFrom string
	Test, TestFrom   string
	Inferred         bool     // the commands were inferred, not declared
	Tools            []string // what the inferred commands need on PATH
	Note             string   // e.g. why devcontainer.json's image was not used
}

// ConfigFile names the declarations' source.
const ConfigFile = ".github/warden.yml"

// Resolve decides the image and commands: declared ones win, then the
// devcontainer's image, then the default image; commands are inferred only
// when test: is empty (a declared setup: is kept with an inferred test).
func Resolve(fsys fs.FS, d Declared) Plan {
	var p Plan
	p.Image, p.ImageFrom, p.Note = resolveImage(fsys, d)
	if d.Setup != "" {
		p.Setup, p.SetupFrom = d.Setup, ConfigFile
	}
	if d.Test != "" {
		p.Test, p.TestFrom = d.Test, ConfigFile
		return p
	}
	inf, ok := Infer(fsys)
	if !ok {
		return p
	}
	p.Test, p.TestFrom, p.Inferred, p.Tools = inf.Test, inf.From, true, inf.Tools
	if d.Setup == "" && inf.Setup != "" {
		p.Setup, p.SetupFrom = inf.Setup, inf.From
	}
	return p
}

func resolveImage(fsys fs.FS, d Declared) (ref, from, note string) {
	if d.Image != "" {
		return d.Image, ConfigFile, ""
	}
	for _, name := range []string{".devcontainer/devcontainer.json", ".devcontainer.json"} {
		raw := read(fsys, name)
		if raw == "" {
			continue
		}
		var dc struct {
			Image      string          `json:"image"`
			Build      json.RawMessage `json:"build"`
			DockerFile string          `json:"dockerFile"`
		}
		if json.Unmarshal([]byte(stripJSONC(raw)), &dc) == nil {
			if dc.Image != "" {
				return dc.Image, name, ""
			}
			if dc.Build != nil || dc.DockerFile != "" {
				note = name + " builds its image from a Dockerfile, which Warden does not do; set `image:` in " + ConfigFile
			}
		}
		break
	}
	if d.DefaultImage != "" {
		return d.DefaultImage, "WARDEN_DEFAULT_IMAGE", note
	}
	return "", "", note
}

// stripJSONC removes the // and /* */ comments and trailing commas that
// devcontainer.json allows, outside strings.
func stripJSONC(s string) string {
	var b strings.Builder
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			b.WriteByte(c)
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
		case c == ',' && closesNext(s[i+1:]):
			// a trailing comma before } or ]
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func closesNext(rest string) bool {
	t := strings.TrimLeft(rest, " \t\r\n")
	return t != "" && (t[0] == '}' || t[0] == ']')
}
