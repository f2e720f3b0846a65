package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Forward connects a loopback port inside the sandbox to one of Warden's
// Unix sockets, bound in: the egress proxy, the metering proxy. What
// listens on the port is the helper itself (helper.go), started by the
// limiter before the command, so a sandbox needs nothing of its image (no
// socat, no libc) to reach Warden.
type Forward struct {
	Port   int    // the loopback port the sandbox's processes connect to
	Socket string // Warden's Unix socket it leads to
}

// forwardArg starts the helper as a forwarder: `<exe> forwardArg PORT SOCK`,
// told to write one byte on fd 3 once it listens (or why it cannot).
const forwardArg = "__warden-sandbox-forward__"

// forwardStart is how long the limiter waits for a forwarder to listen.
const forwardStart = 10 * time.Second

func (f Forward) arg() string { return "forward=" + strconv.Itoa(f.Port) + ":" + f.Socket }

func parseForward(v string) (Forward, error) {
	p, sock, ok := strings.Cut(v, ":")
	port, err := strconv.Atoi(p)
	if !ok || err != nil || port <= 0 || port > 65535 || !strings.HasPrefix(sock, "/") {
		return Forward{}, fmt.Errorf("bad forward %q", v)
	}
	return Forward{Port: port, Socket: sock}, nil
}

// startForwarders runs one forwarder per f, each a child of the limiter
// (and so of the command it becomes), under the caps already set, and
// returns once every one listens. A forwarder that does not start fails
// the command: a sandbox with network never runs without its way out.
func startForwarders(fw []Forward) error {
	self := os.Args[0] // absolute: limiterPath inside the sandbox, the binary outside
	null, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer null.Close()
	for _, f := range fw {
		if err := startForwarder(self, null, f); err != nil {
			return fmt.Errorf("the forwarder of loopback port %d to %s did not start: %w", f.Port, f.Socket, err)
		}
	}
	return nil
}

func startForwarder(self string, null *os.File, f Forward) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	proc, err := os.StartProcess(self, []string{self, forwardArg, strconv.Itoa(f.Port), f.Socket},
		&os.ProcAttr{Files: []*os.File{null, null, null, w}})
	w.Close()
	if err != nil {
		return err
	}
	_ = r.SetReadDeadline(time.Now().Add(forwardStart))
	said, err := io.ReadAll(io.LimitReader(r, 512))
	if string(said) == "1" {
		return proc.Release()
	}
	_ = proc.Kill()
	if len(said) > 0 {
		return errors.New(string(said))
	}
	if err == nil {
		err = errors.New("it exited")
	}
	return err
}

// forwardMain is the forwarder: it listens on the port, tells fd 3, and
// hands every connection to the socket until the command it serves ends.
func forwardMain(args []string) int {
	ready := os.NewFile(3, "ready")
	fail := func(err error) int {
		fmt.Fprint(ready, err)
		return 127
	}
	if len(args) != 2 {
		return fail(fmt.Errorf("usage: %s PORT SOCKET", forwardArg))
	}
	f, err := parseForward(args[0] + ":" + args[1])
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(f.Port)))
	if err != nil {
		return fail(err)
	}
	parent := os.Getppid()
	_, _ = ready.Write([]byte("1"))
	ready.Close()
	// Reparented: the command ended (without a sandbox, nothing else would
	// stop this process).
	go func() {
		for os.Getppid() == parent {
			time.Sleep(200 * time.Millisecond)
		}
		os.Exit(0)
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		go splice(c, f.Socket)
	}
}

// splice copies c to a new connection to sock and back, each direction
// closed on its own.
func splice(c net.Conn, sock string) {
	defer c.Close()
	u, err := net.Dial("unix", sock)
	if err != nil {
		return
	}
	defer u.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(u, c)
		_ = u.(*net.UnixConn).CloseWrite()
		close(done)
	}()
	_, _ = io.Copy(c, u)
	_ = c.(*net.TCPConn).CloseWrite()
	<-done
}
