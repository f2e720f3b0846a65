package lifecycle

import (
	"context"
	"net"
	"sync"
	"testing"
)

// The interleaving test's Redis restarts (#38): every Redis client of
// Warden's in the sim (go-redis and asynq's) reaches the real Redis through
// redisProxy. A restart drops every connection and, while it lasts,
// accepts new ones only to close them at once, as a Redis that is
// restarting resets them: every Redis call fails. It begins after a
// random number of the step's client writes (often none: the whole step),
// so a step can die half-way through its Redis work, and ends with the
// step. The sim's own observations use a direct client (simEnv.direct).

// redisProxy forwards TCP between the sim's clients and Redis.
type redisProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	budget int // client writes left before the cut; < 0: none armed
	conns  map[net.Conn]bool
}

func newRedisProxy(t *testing.T, target string) *redisProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &redisProxy{ln: ln, target: target, budget: -1, conns: map[net.Conn]bool{}}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.Cut() })
	return p
}

func (p *redisProxy) Addr() string { return p.ln.Addr().String() }

func (p *redisProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

// handle pipes one client connection to Redis, unless Redis is down.
func (p *redisProxy) handle(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(c, s) {
		c.Close()
		s.Close()
		return
	}
	go p.pipe(s, c, false)
	p.pipe(c, s, true)
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, s)
	p.mu.Unlock()
	c.Close()
	s.Close()
}

func (p *redisProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return false
	}
	for _, c := range conns {
		p.conns[c] = true
	}
	return true
}

// pipe copies from → to; a counted (client) write spends the armed cut's
// budget, and the write that finds it spent never reaches Redis.
func (p *redisProxy) pipe(from, to net.Conn, counted bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			if counted && !p.spend() {
				return
			}
			if _, werr := to.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			from.Close()
			to.Close()
			return
		}
	}
}

func (p *redisProxy) spend() bool {
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		return false
	}
	if p.budget == 0 {
		p.mu.Unlock()
		p.Cut()
		return false
	}
	if p.budget > 0 {
		p.budget--
	}
	p.mu.Unlock()
	return true
}

// CutAfter arms a restart that begins after n more client writes (0: now).
func (p *redisProxy) CutAfter(n int) {
	if n == 0 {
		p.Cut()
		return
	}
	p.mu.Lock()
	p.budget = n
	p.mu.Unlock()
}

// Cut drops every connection; new ones are closed until Up.
func (p *redisProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down, p.budget = true, -1
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Up ends the restart (or disarms a cut that never came).
func (p *redisProxy) Up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down, p.budget = false, -1
}

// outage runs f (one worker step or webhook delivery) with a restart
// armed when the step asked for one; the restart ends with f.
func (s *sim) outage(f func()) {
	if s.wk.cut < 0 {
		f()
		return
	}
	s.px.CutAfter(s.wk.cut)
	s.wk.cut = -1
	defer s.deadLease()
	defer s.px.Up()
	f()
}

// deadLease: a PR lease whose release the restart lost expires (its TTL
// is 30 s) before anything needs it, as nobody alive holds it between
// steps (a killed attempt dies outside its lease); without this, the next
// push would wait out the TTL in real time.
func (s *sim) deadLease() {
	if n, _ := s.direct.Del(context.Background(), "warden:lock:"+LeaseKey(repo, s.pr)).Result(); n > 0 {
		s.note("  the PR lease the restart left held expired")
	}
}

// restart arms a Redis restart for one random worker step or delivery.
func (s *sim) restart(ctx context.Context, i int) error {
	s.wk.cut = 0
	if s.rng.Intn(2) == 0 {
		s.wk.cut = 1 + s.rng.Intn(40) // in the middle of the step's Redis work
	}
	s.note("%d Redis restarts (after %d writes) during:", i, s.wk.cut)
	s.count("redis restart")
	s.wk.dirty = true
	defer func() { s.wk.cut = -1 }() // a step with nothing to run leaves none armed
	switch s.rng.Intn(4) {           // the outage wraps the router's or the handler's work only
	case 0:
		s.inline(ctx, 0)
	case 1:
		s.cancelCmd(ctx, i)
	default:
		return s.work(ctx, i, true)
	}
	return nil
}
