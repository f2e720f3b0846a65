package webhooks

import (
	"context"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/warden-bot/warden/jobs"

	"github.com/labstack/echo/v4"
)

// MaxBody is GitHub's own cap on payloads.
const MaxBody = 25 << 20

// ErrUnavailable marks failures of Warden's own backing store: the delivery
// is answered 503 so GitHub keeps it for redelivery.
var ErrUnavailable = errors.New("queue unavailable")

// ErrMalformed marks a payload that does not fit its event.
var ErrMalformed = errors.New("malformed payload")

type deliveryStore interface {
	Begin(ctx context.Context, id string) (jobs.DeliveryState, error)
	Commit(ctx context.Context, id string) error
	Abort(ctx context.Context, id string) error
}

type router interface {
	Route(ctx context.Context, d Delivery) (Decision, error)
}

// Handler serves POST /webhooks.
type Handler struct {
	Secret     []byte
	Deliveries deliveryStore
	Router     router
	Log        *slog.Logger
	Observe    func(event, result string) // metrics hook; may be nil
	// PendingWait bounds how long a copy of a delivery that another request
	// is handling waits for that request's answer (default 3 s).
	PendingWait time.Duration
	// Window is the deduplication window (WARDEN_DELIVERY_TTL): an event
	// older than it is refused, its keys may have expired. 0: no check.
	Window time.Duration
	// Inflight bounds the body bytes held by requests being read; nil:
	// DefaultInflight, shared by every Handler without one.
	Inflight *Budget
}

var defaultInflight = NewBudget(DefaultInflight)

// Delivery is one verified webhook delivery.
type Delivery struct {
	RequestID string // X-Request-ID, to join the handler's logs with the access log
	ID        string
	Signature string // the body's verified HMAC, hex: a second dedup key (replay.go)
	Event     string
	Payload   []byte
}

// Decision is the answer to a delivery: 202 queued or 200 nothing to do.
type Decision struct {
	Code   int    `json:"-"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// closing answers an error before (or instead of) reading the body and
// closes the connection, so that the unread body is never drained.
func closing(c echo.Context, code int, reason string) error {
	c.Response().Header().Set("Connection", "close")
	return answer(c, code, "error", reason)
}

func answer(c echo.Context, code int, status, reason string) error {
	return c.JSON(code, Decision{Status: status, Reason: reason})
}

// ServeHTTP handles one delivery; see CONTRACT §3 for the codes.
func (h *Handler) ServeHTTP(c echo.Context) error {
	req := c.Request()
	// What the headers alone can refuse is refused before the body is read:
	// an unsigned caller costs Warden no body bytes at all.
	if code, err := precheck(h.Secret, req.Header, req.ContentLength); err != nil {
		if code == http.StatusUnauthorized {
			h.Log.Warn("webhook signature rejected", "remote", c.RealIP(), "audit", true)
		}
		return closing(c, code, err.Error())
	}
	budget := h.Inflight
	if budget == nil {
		budget = defaultInflight
	}
	client := c.RealIP()
	body, held, err := readBody(req.Body, http.NewResponseController(c.Response()), req.ContentLength, budget, client)
	defer budget.give(client, held)
	switch {
	case errors.Is(err, errTooLarge):
		return closing(c, http.StatusRequestEntityTooLarge, err.Error())
	case errors.Is(err, errBusy):
		return closing(c, http.StatusServiceUnavailable, "too many deliveries in flight; redeliver later")
	case err != nil:
		return closing(c, http.StatusBadRequest, "could not read body")
	}
	if err := Verify(h.Secret, req.Header.Get("X-Hub-Signature-256"), body); err != nil {
		h.Log.Warn("webhook signature rejected", "remote", c.RealIP(), "audit", true)
		return answer(c, http.StatusUnauthorized, "error", err.Error())
	}
	d, err := parseDelivery(req.Header, body)
	if err != nil {
		return answer(c, http.StatusBadRequest, "error", err.Error())
	}
	d.RequestID = c.Response().Header().Get(echo.HeaderXRequestID)
	d.Signature = strings.ToLower(strings.TrimPrefix(req.Header.Get("X-Hub-Signature-256"), "sha256="))
	dec := h.handle(req.Context(), d)
	if h.Observe != nil {
		h.Observe(d.Event, dec.Status)
	}
	return c.JSON(dec.Code, dec)
}

func (h *Handler) handle(ctx context.Context, d Delivery) Decision {
	log := h.Log.With("delivery", d.ID, "event", d.Event, "request_id", d.RequestID)
	ctx = jobs.WithDelivery(ctx, d.ID)
	if stale(d.Payload, h.Window, time.Now()) {
		log.Warn("delivery older than the dedup window refused", "audit", true)
		return Decision{Code: http.StatusOK, Status: "ignored", Reason: "event older than the deduplication window"}
	}
	switch st, err := h.claimAll(ctx, d); {
	case err != nil:
		log.Error("delivery store unavailable", "err", err)
		return Decision{Code: http.StatusServiceUnavailable, Status: "unavailable", Reason: "queue unreachable; redeliver later"}
	case st == jobs.DeliveryDone:
		return Decision{Code: http.StatusOK, Status: "duplicate", Reason: "delivery seen before"}
	case st == jobs.DeliveryPending:
		// Its first copy has not been answered, or died unanswered: a 200 now
		// could acknowledge work that is never queued.
		log.Warn("delivery still held by an unanswered request")
		return Decision{Code: http.StatusServiceUnavailable, Status: "unavailable", Reason: "this delivery is still being handled; redeliver later"}
	}
	dec, err := h.Router.Route(ctx, d)
	if err != nil {
		for _, k := range d.keys() {
			_ = h.Deliveries.Abort(context.WithoutCancel(ctx), k)
		}
		if errors.Is(err, ErrMalformed) {
			log.Warn("malformed payload", "err", err)
			return Decision{Code: http.StatusBadRequest, Status: "error", Reason: err.Error()}
		}
		log.Error("routing failed", "err", err)
		return Decision{Code: http.StatusServiceUnavailable, Status: "unavailable", Reason: "queue unreachable; redeliver later"}
	}
	for _, k := range d.keys() {
		if err := h.Deliveries.Commit(ctx, k); err != nil {
			log.Warn("delivery not remembered", "err", err)
		}
	}
	log.Info("webhook handled", "status", dec.Status, "reason", dec.Reason)
	return dec
}

// claim reserves the delivery id. A copy that finds it pending waits (a
// little) for the first request's answer: done makes it a duplicate,
// released (that request answered 503) lets this copy do the work.
func (h *Handler) claim(ctx context.Context, id string) (jobs.DeliveryState, error) {
	wait := h.PendingWait
	if wait == 0 {
		wait = 3 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		st, err := h.Deliveries.Begin(ctx, id)
		if err != nil || st != jobs.DeliveryPending || time.Now().After(deadline) {
			return st, err
		}
		select {
		case <-ctx.Done():
			return st, nil
		case <-time.After(25 * time.Millisecond):
		}
	}
}

func parseDelivery(h http.Header, body []byte) (Delivery, error) {
	d := Delivery{ID: h.Get("X-GitHub-Delivery"), Event: h.Get("X-GitHub-Event"), Payload: body}
	if d.ID == "" || d.Event == "" || len(d.ID) > 128 || len(d.Event) > 64 {
		return d, errors.New("missing or malformed X-GitHub-Event or X-GitHub-Delivery header")
	}
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt == "application/x-www-form-urlencoded" {
		form, err := url.ParseQuery(string(body))
		if err != nil || form.Get("payload") == "" {
			return d, errors.New("form body without a payload field")
		}
		d.Payload = []byte(form.Get("payload"))
	}
	// The JSON itself is checked once, by the route's decoding (see Route).
	return d, nil
}
