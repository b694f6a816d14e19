package clients

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/servers"
	"github.com/respcheck/respcheck/runner/target"
)

// panicDriver is a test library on raw sockets: it sends each command,
// reads the reply, and panics after reading the reply to ECHO boom.
type panicDriver struct{}

func (panicDriver) Library() string { return "panicky" }
func (panicDriver) Version() string { return "test" }
func (panicDriver) Protos() []int   { return []int{2} }
func (panicDriver) API() string     { return "raw socket (test driver)" }
func (panicDriver) Open(ctx context.Context, addr string, proto int) (Session, error) {
	return &panicSession{addr: addr}, nil
}

type panicSession struct {
	addr  string
	conns []net.Conn
}

func (s *panicSession) Conn(ctx context.Context, name string) (Conn, error) {
	nc, err := net.Dial("tcp", s.addr)
	if err != nil {
		return nil, err
	}
	s.conns = append(s.conns, nc)
	return &panicConn{nc: nc, r: resp.NewReader(bufio.NewReader(nc))}, nil
}

func (s *panicSession) Close() error {
	for _, c := range s.conns {
		c.Close()
	}
	return nil
}

type panicConn struct {
	nc net.Conn
	r  *resp.Reader
}

func (c *panicConn) Do(ctx context.Context, args [][]byte) Native {
	if _, err := c.nc.Write(resp.AppendCommand(nil, args...)); err != nil {
		return errNative("exception", "write", "write", err.Error())
	}
	v, err := c.r.Read()
	if err != nil {
		return errNative("exception", "read", "read", err.Error())
	}
	if strings.EqualFold(string(args[0]), "ECHO") && string(args[1]) == "boom" {
		panic("test driver panic after reading the reply")
	}
	return bytesNative("[]byte", v.Str)
}

// TestLibraryPanicIsACrash checks that a library that panics after
// receiving a valid reply gets a crash for that step, with the panic's
// message and stack, and that the case and the run go on.
func TestLibraryPanicIsACrash(t *testing.T) {
	rep := runInline(t, []Driver{panicDriver{}}, 0, `suite: panic
cases:
  - name: a panic in the middle
    steps:
      - {send: [ECHO, before], reply: "$6\r\nbefore\r\n"}
      - {send: [ECHO, boom], reply: "$4\r\nboom\r\n"}
      - {send: [ECHO, after], reply: "$5\r\nafter\r\n"}
  - name: the next case
    steps:
      - {send: [ECHO, next], reply: "$4\r\nnext\r\n"}
`)
	if len(rep.Results) != 2 || rep.Results[0].Verdict != Crash || rep.Results[1].Verdict != Match {
		t.Fatalf("verdicts: %v", verdictsOf(rep))
	}
	steps := rep.Results[0].Steps
	if len(steps) != 3 || steps[0].Verdict != Match || steps[1].Verdict != Crash || steps[2].Verdict != Match {
		t.Fatalf("step verdicts: %+v", steps)
	}
	msg := steps[1].Native.Err.Message
	if !strings.Contains(msg, "test driver panic") || !strings.Contains(msg, "panic_test.go") || steps[1].Canary != "ok" {
		t.Errorf("crash step: message %q, canary %q", msg, steps[1].Canary)
	}
}

// panicTypedDriver is panicDriver in typed-wrapper mode: its wrapper
// (Echo) sends the command through panicConn.Do.
type panicTypedDriver struct{ panicDriver }

func (panicTypedDriver) Library() string { return "panicky-typed" }
func (panicTypedDriver) isTyped() bool   { return true }
func (panicTypedDriver) Open(ctx context.Context, addr string, proto int) (Session, error) {
	return panicTypedSession{&panicSession{addr: addr}}, nil
}

type panicTypedSession struct{ *panicSession }

func (s panicTypedSession) Conn(ctx context.Context, name string) (Conn, error) {
	c, err := s.panicSession.Conn(ctx, name)
	if err != nil {
		return nil, err
	}
	return panicTypedConn{c.(*panicConn)}, nil
}

type panicTypedConn struct{ *panicConn }

func (c panicTypedConn) DoTyped(ctx context.Context, args [][]byte) (Native, typedCall) {
	return c.Do(ctx, args), sent("Echo")
}

// TestTypedWrapperPanicIsACrash: a typed wrapper that panics was called
// (a crash of its step), never a step it had no wrapper for.
func TestTypedWrapperPanicIsACrash(t *testing.T) {
	rep := runInline(t, []Driver{panicTypedDriver{}}, 0, `suite: panic
cases:
  - name: a panic in a typed wrapper
    steps:
      - {send: [ECHO, before], reply: "$6\r\nbefore\r\n"}
      - {send: [ECHO, boom], reply: "$4\r\nboom\r\n"}
`)
	if len(rep.Results) != 1 || len(rep.Results[0].Steps) != 2 {
		t.Fatalf("verdicts: %v", verdictsOf(rep))
	}
	st := rep.Results[0].Steps
	if st[0].Verdict != Match || st[0].Typed != "Echo" || st[1].Verdict != Crash {
		t.Errorf("steps: %s via %q, %s %q; want a match through Echo, then a crash", st[0].Verdict, st[0].Typed, st[1].Verdict, st[1].Notes)
	}
}

func verdictsOf(rep *Report) []string {
	var out []string
	for _, r := range rep.Results {
		out = append(out, r.Case.Name+": "+r.Verdict.String()+" "+r.Reason)
	}
	return out
}

// TestAdapterSurvivesAThrow drives the Node adapter's self-test library:
// an exception thrown from the library's own event handler is that step's
// crash, with its message, and the process answers the next steps and
// cases; an error with an empty message keeps what it carries.
func TestAdapterSurvivesAThrow(t *testing.T) {
	ds := selftestDrivers(t)
	rep := runInline(t, ds, 1, `suite: throw
cases:
  - name: a throw outside the call
    steps:
      - {send: [ECHO, before], reply: "$6\r\nbefore\r\n"}
      - {send: [ECHO, throw-outside], reply: "$13\r\nthrow-outside\r\n"}
      - {send: [ECHO, after], reply: "$5\r\nafter\r\n"}
  - name: an error with an empty message
    steps:
      - {send: [ECHO, throw-empty], reply: "$11\r\nthrow-empty\r\n"}
  - name: the next case
    steps:
      - {send: [ECHO, next], reply: "$4\r\nnext\r\n"}
`)
	if len(rep.Results) != 3 || rep.Results[0].Verdict != Crash || rep.Results[2].Verdict != Match {
		t.Fatalf("verdicts: %v\n%+v", verdictsOf(rep), rep.Results[0].Steps)
	}
	st := rep.Results[0].Steps
	if len(st) != 3 || st[1].Verdict != Crash || st[2].Verdict != Match || st[1].Native == nil ||
		!strings.Contains(st[1].Native.Err.Message, "thrown in the data handler") {
		t.Errorf("throw-outside steps: %+v", st)
	}
	if sv := rep.Results[1].Steps[0]; sv.Native == nil || sv.Native.Err == nil || sv.Native.Err.Message != "first; second" {
		t.Errorf("empty-message error: %+v", sv)
	}
}

// runInline runs a case file given as text through drivers on a fresh
// redis-7.0.15 (jobs 0: the default).
func runInline(t *testing.T, drivers []Driver, jobs int, src string) *Report {
	t.Helper()
	srv := servers.ForTest(t, "redis-7.0.15")
	f, err := cases.Load("inline.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()}, Drivers: drivers, Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestAdapterSettle: an exception a Node library throws once its call has
// answered (outside any call) is the case's crash, on its last step, when
// the case ends; a case of another session, run beside it, is not touched.
func TestAdapterSettle(t *testing.T) {
	ds := selftestDrivers(t)
	rep := runInline(t, ds, 2, `suite: settle
cases:
  - name: a throw after the call
    steps:
      - {send: [ECHO, throw-later], reply: "$11\r\nthrow-later\r\n"}
      - {push: true, reply: ">2\r\n$1\r\na\r\n$1\r\nb\r\n"}
  - name: beside it
    steps:
      - {send: [ECHO, one], reply: "$3\r\none\r\n"}
      - {sleep: 30ms}
      - {send: [ECHO, two], reply: "$3\r\ntwo\r\n"}
`)
	if len(rep.Results) != 2 || rep.Results[0].Verdict != Crash || rep.Results[1].Verdict != Match {
		t.Fatalf("verdicts: %v\n%+v", verdictsOf(rep), rep.Results[0].Steps)
	}
	st := rep.Results[0].Steps
	if len(st) != 2 || st[0].Verdict != Match || st[1].Verdict != Crash ||
		!strings.Contains(strings.Join(st[1].Notes, "\n"), "after the case's last step, outside any call, the library threw: thrown after the call") || !strings.HasPrefix(st[1].Notes[0], "after the case") {
		t.Errorf("steps: %+v", st)
	}
}

// selftestDrivers returns the Node adapter's self-test library (see
// adapter.js), in a Node process of its own started with
// RESPCHECK_ADAPTER_SELFTEST=1 (the shared ones, allDrivers, started
// without it). Only that process starts: Available would start every
// adapter (some sixty, the Go ones this race-built binary) for one driver.
func selftestDrivers(t *testing.T) []Driver {
	t.Helper()
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not on PATH")
	}
	a := &Adapter{Name: "node selftest", Cmd: []string{nodeBin, filepath.Join(adaptersDir(""), "node", "adapter.js")},
		Env: []string{"RESPCHECK_ADAPTER_SELFTEST=1", "RESPCHECK_LIBS=selftest"}, Label: "selftest"}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ds, notes, err := a.Drivers(ctx)
	t.Cleanup(func() { CloseDrivers(ds); a.Close() })
	if err != nil {
		t.Fatalf("node adapter: %v", err)
	}
	for _, d := range ds {
		if d.Library() == "selftest" {
			return []Driver{d}
		}
	}
	t.Fatalf("no selftest driver: %v", notes)
	return nil
}

// TestAdapterOutlivesAHang: a session that hangs is closed in its adapter
// process, which runs the next case (no restart); a process that cannot
// answer the close (its event loop blocked) is killed, and the next case
// runs in a new one.
func TestAdapterOutlivesAHang(t *testing.T) {
	ds := selftestDrivers(t)
	a := ds[0].(*adapterDriver).a
	if err := a.boot(); err != nil {
		t.Fatal(err)
	}
	srv := servers.ForTest(t, "redis-7.0.15")
	run := func(src string) *Report {
		t.Helper()
		f, err := cases.Load("inline.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(context.Background(), []*cases.File{f}, Options{Target: target.Config{Addr: srv.Addr()},
			Drivers: ds, Jobs: 1, StepTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	const next = `
  - name: the next case
    steps:
      - {send: [ECHO, next], reply: "$4\r\nnext\r\n"}
`
	first := a.current()
	rep := run(`suite: hang
cases:
  - name: a hang
    steps:
      - {send: [ECHO, hang], reply: "$4\r\nhang\r\n"}
      - {send: [ECHO, skipped], reply: "$7\r\nskipped\r\n"}` + next)
	if v := verdictsOf(rep); len(v) != 2 || rep.Results[0].Verdict != Hang || rep.Results[1].Verdict != Match {
		t.Fatalf("verdicts: %v", v)
	}
	if a.current() != first {
		t.Errorf("the adapter process was restarted after a hang whose session closed")
	}
	rep = run(`suite: freeze
cases:
  - name: a frozen event loop
    steps:
      - {send: [ECHO, freeze], reply: "$6\r\nfreeze\r\n"}` + next)
	if v := verdictsOf(rep); len(v) != 2 || rep.Results[0].Verdict != Hang || rep.Results[1].Verdict != Match {
		t.Fatalf("verdicts: %v", v)
	}
	if p := a.current(); p == first || p == nil {
		t.Errorf("the process that could not close the hung session was kept")
	}
}

// TestAdapterThatDoesNotStartIsAnError: a configuration's adapter process
// starts on its first session (AvailableFor hands each driver a process of
// its own, not started); one that does not start is an error, not judged,
// not the library's crash.
func TestAdapterThatDoesNotStartIsAnError(t *testing.T) {
	d := &adapterDriver{a: &Adapter{Name: "missing", Cmd: []string{filepath.Join(t.TempDir(), "no-such-adapter")}},
		lib: adapterLibrary{Name: "missing", Protos: []int{2}}}
	rep := runInline(t, []Driver{d}, 0, `suite: boot
cases:
  - name: echo
    steps:
      - {send: [ECHO, hi], reply: "$2\r\nhi\r\n"}
`)
	if len(rep.Results) != 1 || rep.Results[0].Verdict != Error || !strings.Contains(rep.Results[0].Reason, "the adapter process did not start") {
		t.Fatalf("verdicts: %v", verdictsOf(rep))
	}
}
