package webhooks

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// DefaultInflight is how many body bytes all deliveries being read may hold
// together. GitHub's payloads are rarely over 1 MiB; two full-size ones fit.
const DefaultInflight = 2*MaxBody + 1<<20

var (
	errTooLarge = errors.New("body over 25 MiB")
	errBusy     = errors.New("too many bodies in flight")
)

// Budget bounds the body bytes held by requests still being read, so that
// callers who stall mid-body (or send many large bodies) hold at most this
// much of Warden's memory between them; beyond it requests get 503. One
// client address holds at most half of it, so a single abuser cannot starve
// GitHub's deliveries.
type Budget struct {
	mu        sync.Mutex
	used, max int64
	by        map[string]int64
}

// NewBudget is a budget of max bytes.
func NewBudget(max int64) *Budget { return &Budget{max: max, by: map[string]int64{}} }

func (b *Budget) take(client string, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.max || b.by[client]+n > b.max/2 {
		return false
	}
	b.used += n
	b.by[client] += n
	return true
}

func (b *Budget) give(client string, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	if b.by[client] -= n; b.by[client] <= 0 {
		delete(b.by, client)
	}
}

// Progress is how long a body may go without a byte arriving: GitHub sends
// its payload at once, a caller who stalls mid-body is cut after this.
const Progress = 2 * time.Second

// deadliner sets the connection's read deadline (http.ResponseController).
type deadliner interface{ SetReadDeadline(time.Time) error }

// precheck refuses what can be refused from the headers alone, before a
// byte of the body is read: a missing or malformed signature, a declared
// length over the cap.
func precheck(secret []byte, h http.Header, length int64) (int, error) {
	if len(secret) == 0 || !wellFormedSignature(h.Get("X-Hub-Signature-256")) {
		return http.StatusUnauthorized, ErrSignature
	}
	if length > MaxBody {
		return http.StatusRequestEntityTooLarge, errTooLarge
	}
	return 0, nil
}

func wellFormedSignature(v string) bool {
	hexSig, ok := strings.CutPrefix(v, "sha256=")
	if !ok || len(hexSig) != 64 {
		return false
	}
	for _, c := range hexSig {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// readBody reads at most MaxBody bytes, charging each chunk to client's
// share of b before it is kept (the caller gives back held once the request
// is answered) and cutting a body that makes no progress for Progress.
func readBody(r io.Reader, dl deadliner, length int64, b *Budget, client string) (body []byte, held int64, err error) {
	const chunk = 64 << 10
	if length > 0 {
		body = make([]byte, 0, min(length, chunk)) // never trust a declared length with memory up front
	}
	buf := make([]byte, chunk)
	for {
		if dl != nil {
			_ = dl.SetReadDeadline(time.Now().Add(Progress))
		}
		n, rerr := r.Read(buf)
		if n > 0 {
			if int64(len(body)+n) > MaxBody {
				return nil, held, errTooLarge
			}
			if !b.take(client, int64(n)) {
				return nil, held, errBusy
			}
			held += int64(n)
			body = append(body, buf[:n]...)
		}
		if rerr == io.EOF {
			return body, held, nil
		}
		if rerr != nil {
			return nil, held, fmt.Errorf("read body: %w", rerr)
		}
	}
}
