package chaos

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
)

// delivery is one webhook delivery and every answer it got, first send and
// redeliveries alike (same id, as GitHub redelivers).
type delivery struct {
	id, event string
	issue     int
	body      []byte
	answers   []answer
}

// answer is one HTTP exchange: code 0 means no answer within the timeout.
type answer struct {
	code   int
	status string // the body's "status"
	err    error
	at     time.Time     // when the answer came
	took   time.Duration // from send to answer
}

func (d *delivery) last() answer { return d.answers[len(d.answers)-1] }

// client bounds every exchange: GitHub gives a delivery 10 s, and a hang is
// a failure, never a wait.
var client = &http.Client{Timeout: 10 * time.Second}

// send posts d once, signed, and records the answer.
func (d *delivery) send(url string) answer {
	a, sent := answer{}, time.Now()
	resp, err := client.Do(harness.NewDelivery(url, d.event, d.id, d.body, world.Secret))
	if err != nil {
		a.err = err
	} else {
		var dec struct {
			Status string `json:"status"`
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		_ = json.Unmarshal(b, &dec)
		a.code, a.status = resp.StatusCode, dec.Status
	}
	a.at = time.Now()
	a.took = a.at.Sub(sent)
	d.answers = append(d.answers, a)
	return a
}

// traffic sends deliveries in order, one every gap, from workers goroutines;
// answered counts the answers so far, for the test to time its faults.
type traffic struct {
	url      string
	ds       []*delivery
	workers  int
	gap      time.Duration
	answered atomic.Int64
	wg       sync.WaitGroup
}

func (tr *traffic) start() {
	ch := make(chan *delivery)
	go func() {
		for _, d := range tr.ds {
			ch <- d
			time.Sleep(tr.gap)
		}
		close(ch)
	}()
	for range tr.workers {
		tr.wg.Add(1)
		go func() {
			defer tr.wg.Done()
			for d := range ch {
				d.send(tr.url)
				tr.answered.Add(1)
			}
		}()
	}
}

func (tr *traffic) wait() { tr.wg.Wait() }

// redeliver sends every delivery last answered 503 again, as GitHub's
// redelivery would, until each gets another answer or d passes.
func (tr *traffic) redeliver(d time.Duration) (sent int, err error) {
	deadline := time.Now().Add(d)
	for _, dl := range tr.ds {
		for dl.last().code == http.StatusServiceUnavailable {
			if time.Now().After(deadline) {
				return sent, fmt.Errorf("delivery %s still answered 503 after %s of redeliveries", dl.id, d)
			}
			sent++
			if dl.send(tr.url).code == http.StatusServiceUnavailable {
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	return sent, nil
}
