package githubapp

import (
	"context"
	"io"
	"net/http"
	"time"
)

// deadline bounds each request, retries and body included, by d — what
// http.Client.Timeout did, without its goroutine. With a RoundTripper that
// is not net/http's own, Client.Timeout starts a goroutine per request that
// ends only when the body is closed or the timeout fires; go-github swaps an
// error answer's body for a copy and never closes the original, so every
// 4xx (a PR create answered 422 "already exists", once per retried release)
// held a goroutine for 30 s. A context deadline costs a timer, not a
// goroutine, and is released the same way.
type deadline struct {
	next http.RoundTripper
	d    time.Duration
}

func (t deadline) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.d)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
