package meter

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// Proxy is the one way out of an agent CLI's sandbox: it forwards to the
// configured model endpoint only, puts the real API key on each request
// (the CLI holds a dummy), reads every response's token usage, prices it,
// charges the ledger and refuses further calls once a cap is reached.
type Proxy struct {
	Upstream *url.URL // the real endpoint (WARDEN_LLM_BASE_URL)
	API      string   // anthropic or openai: which header carries the key
	APIKey   string
	Ledger   *Ledger
	Scope    Scope
	Price    func(model string, in, out int) float64
	Client   *http.Client // upstream transport; nil = http.DefaultTransport
	Log      *slog.Logger
	// OnRefuse is told when a call was refused for the budget (the agent
	// is then stopped); OnCall of every answered call. Either may be nil.
	OnRefuse func(err error)
	OnCall   func(u Usage, usd float64)

	mu       sync.Mutex
	refused  error
	seenKeys map[string]bool
}

// Refused is the budget error that made the proxy refuse a call, if any.
func (p *Proxy) Refused() error { p.mu.Lock(); defer p.mu.Unlock(); return p.refused }

// SeenKeys are the credentials the agent sent (x-api-key or bearer token):
// tests assert they are only ever the dummy.
func (p *Proxy) SeenKeys() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for k := range p.seenKeys {
		out = append(out, k)
	}
	return out
}

// ServeHTTP forwards one generation call. It fails closed: any other path
// is refused; the call's maximum cost is reserved on the ledger before it
// starts (so parallel calls cannot pass a cap together) and settled at its
// real cost after; a successful reply whose usage cannot be read is charged
// the maximum.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.note(r)
	if !allowedCall(p.API, r) {
		p.log().Warn("model call refused: not a generation endpoint", "task", p.Scope.Task(), "method", r.Method, "path", r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"permission_error","message":%q}}`, "Warden: only model generation calls are forwarded, not "+r.Method+" "+r.URL.Path)
		return
	}
	b, err := readBounds(r)
	if err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"unreadable request"}}`, http.StatusBadRequest)
		return
	}
	reserved := p.price(b.Model, b.Input, b.Output)
	if err := p.Ledger.Reserve(r.Context(), p.Scope, reserved); err != nil {
		p.refuse(w, err)
		return
	}
	settled := false
	rp := &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		FlushInterval:  -1, // streamed replies reach the agent as they come
		ModifyResponse: func(res *http.Response) error { settled = true; return p.meter(res, reserved) },
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.log().Warn("model endpoint unreachable through the proxy", "err", err)
			http.Error(w, `{"type":"error","error":{"type":"api_error","message":"model endpoint unreachable"}}`, http.StatusBadGateway)
		},
	}
	defer func() {
		if !settled { // no reply: nothing was generated, the reservation goes back
			p.settle(context.WithoutCancel(r.Context()), reserved, 0)
		}
	}()
	if p.Client != nil {
		rp.Transport = p.Client.Transport
	}
	rp.ServeHTTP(w, r)
}

func (p *Proxy) note(r *http.Request) {
	key := r.Header.Get("X-Api-Key")
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		key = b
	}
	p.mu.Lock()
	if p.seenKeys == nil {
		p.seenKeys = map[string]bool{}
	}
	p.seenKeys[key] = true
	p.mu.Unlock()
}

// rewrite sends the request to the upstream's scheme and host, under its
// path, with the real key and nothing the agent said about credentials.
func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(p.Upstream) // joins the upstream's path with the request's
	pr.Out.Host = p.Upstream.Host
	for _, h := range []string{"X-Api-Key", "Authorization", "Cookie", "Proxy-Authorization"} {
		pr.Out.Header.Del(h)
	}
	// The usage is read from the reply as it passes: it must come back
	// uncompressed. (A reply compressed anyway is charged its maximum.)
	pr.Out.Header.Set("Accept-Encoding", "identity")
	if p.API == "anthropic" {
		pr.Out.Header.Set("X-Api-Key", p.APIKey)
	} else {
		pr.Out.Header.Set("Authorization", "Bearer "+p.APIKey)
	}
}

func (p *Proxy) meter(res *http.Response, reserved float64) error {
	ctx := context.WithoutCancel(res.Request.Context())
	readable := identity(res.Header)
	ok := res.StatusCode >= 200 && res.StatusCode < 300
	res.Body = newTap(res.Body, res.Header.Get("Content-Type"), func(u Usage) {
		usd := 0.0
		switch {
		case readable && (u.InputTokens > 0 || u.OutputTokens > 0):
			usd = p.price(u.Model, u.InputTokens, u.OutputTokens)
		case ok: // a reply was generated but its cost cannot be read
			usd = reserved
			p.log().Warn("model call charged its maximum: no readable usage", "task", p.Scope.Task(),
				"content_encoding", res.Header.Get("Content-Encoding"), "usd", usd)
		}
		p.settle(ctx, reserved, usd)
		p.log().Debug("model call metered", "task", p.Scope.Task(), "model", u.Model, "input_tokens", u.InputTokens, "output_tokens", u.OutputTokens, "cost_usd", usd)
		if p.OnCall != nil {
			p.OnCall(u, usd)
		}
	})
	return nil
}

// refuse answers a call over budget with an error the CLIs do not retry
// (a 4xx invalid request), and tells the session to stop the agent.
func (p *Proxy) refuse(w http.ResponseWriter, err error) {
	p.mu.Lock()
	first := p.refused == nil
	if first {
		p.refused = err
	}
	p.mu.Unlock()
	p.log().Info("model call refused: budget spent", "task", p.Scope.Task(), "err", err)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","code":"budget_exhausted","message":%q}}`, "Warden: "+err.Error())
	if first && p.OnRefuse != nil {
		p.OnRefuse(err)
	}
}

func (p *Proxy) price(model string, in, out int) float64 {
	if p.Price == nil {
		return 0
	}
	return p.Price(model, in, out)
}

func (p *Proxy) settle(ctx context.Context, reserved, actual float64) {
	if err := p.Ledger.Settle(ctx, p.Scope, reserved, actual); err != nil {
		p.log().Error("model spend not settled", "task", p.Scope.Task(), "reserved", reserved, "usd", actual, "err", err)
	}
}

func (p *Proxy) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}

// Serve listens on a Unix socket at path (mode 0600 parent dir expected)
// until ctx ends. The socket is what gets bound into the sandbox.
func (p *Proxy) Serve(ctx context.Context, path string) (stop func(), err error) {
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("metering proxy socket %s: %w", path, err)
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = srv.Close()
			_ = os.Remove(path)
		})
	}
	go func() { <-ctx.Done(); stop() }()
	return stop, nil
}

var _ io.ReadCloser = (*tap)(nil)
