// Package gocache is a GOCACHEPROG helper that lets a sandboxed go command
// use a shared build cache without being able to write it: hits are served
// from the shared cache (mounted read-only), new results go to a private
// directory that dies with the command. Go cannot run on a read-only GOCACHE,
// and a writable shared one would let one command plant build results that a
// later command trusts.
package gocache

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// request and response follow cmd/go/internal/cacheprog.
type request struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type response struct {
	ID            int64      `json:"ID"`
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

type entry struct {
	out  []byte
	size int64
	path string
}

// Serve answers the go command on in/out until "close" or end of input.
// shared is a Go build cache directory read-only; private receives puts.
func Serve(in io.Reader, out io.Writer, shared, private string) error {
	if err := os.MkdirAll(private, 0o700); err != nil {
		return err
	}
	s := &server{shared: shared, private: private, mine: map[string]entry{}}
	enc := json.NewEncoder(out)
	if err := enc.Encode(response{KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return err
	}
	dec := json.NewDecoder(bufio.NewReader(in))
	for {
		var req request
		if err := dec.Decode(&req); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("read request: %w", err)
		}
		var body []byte
		if req.Command == "put" && req.BodySize > 0 {
			var b64 string
			if err := dec.Decode(&b64); err != nil {
				return fmt.Errorf("read body: %w", err)
			}
			var err error
			if body, err = base64.StdEncoding.DecodeString(b64); err != nil {
				return fmt.Errorf("decode body: %w", err)
			}
		}
		resp := s.answer(req, body)
		if err := enc.Encode(resp); err != nil {
			return err
		}
		if req.Command == "close" {
			return nil
		}
	}
}

type server struct {
	shared, private string
	mu              sync.Mutex
	mine            map[string]entry
}

func (s *server) answer(req request, body []byte) response {
	r := response{ID: req.ID}
	switch req.Command {
	case "get":
		if e, ok := s.get(req.ActionID); ok {
			r.OutputID, r.Size, r.DiskPath = e.out, e.size, e.path
		} else {
			r.Miss = true
		}
	case "put":
		p := filepath.Join(s.private, hex.EncodeToString(req.OutputID)+"-d")
		if err := os.WriteFile(p, body, 0o600); err != nil {
			r.Err = err.Error()
			break
		}
		s.mu.Lock()
		s.mine[string(req.ActionID)] = entry{out: req.OutputID, size: int64(len(body)), path: p}
		s.mu.Unlock()
		r.DiskPath = p
	case "close":
	default:
		r.Err = "unknown command " + req.Command
	}
	return r
}

// get finds an action: first what this command put, then the shared cache
// (its "<aa>/<action>-a" entry names the "<oo>/<output>-d" file).
func (s *server) get(action []byte) (entry, bool) {
	s.mu.Lock()
	e, ok := s.mine[string(action)]
	s.mu.Unlock()
	if ok {
		return e, true
	}
	if len(action) == 0 {
		return entry{}, false
	}
	id := hex.EncodeToString(action)
	b, err := os.ReadFile(filepath.Join(s.shared, id[:2], id+"-a"))
	if err != nil {
		return entry{}, false
	}
	f := strings.Fields(string(b))
	if len(f) != 5 || f[0] != "v1" || f[1] != id {
		return entry{}, false
	}
	out, err := hex.DecodeString(f[2])
	size, serr := strconv.ParseInt(f[3], 10, 64)
	if err != nil || serr != nil || len(f[2]) < 2 {
		return entry{}, false
	}
	p := filepath.Join(s.shared, f[2][:2], f[2]+"-d")
	if fi, err := os.Stat(p); err != nil || fi.Size() != size {
		return entry{}, false
	}
	return entry{out: out, size: size, path: p}, true
}
