package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/runner/golden"
	"github.com/respcheck/respcheck/runner/golden/replay"
	"github.com/respcheck/respcheck/runner/report"
)

const serveLong = `Serve listens like a Redis server and answers each command a client sends
with the bytes recorded for that exact command in a golden directory (see
"respcheck record"), written raw. It is for testing clients: a client library
connected to it must decode every recorded reply.

Matching: per protocol (RESP2 until the client sends HELLO 3), a command's
bytes, with any key prefix rc:{xxxxxxxx}: read as rc:{________}:, select the
recordings of that exact command. A recorded reply belongs to the state of
its case (BUSY while a script runs, QUEUED inside MULTI), so it answers only
a connection replaying that case: one that used the case's recorded key
prefix, or whose own commands so far are a recorded connection's, from its
first (with any run id). Other connections do not count. Outside any case, a
command is answered from the recordings only when they agree; else PING gets
+PONG and ECHO its message, as from any server, and any other command an
error reply and a finding (details: docs/goldens.md). The
reply's rc:{________}: is written back as the client's prefix. HELLO 2 and
HELLO 3 get the recorded HELLO replies; CLIENT SETINFO and SELECT 0 get +OK
when not recorded. A command that was never recorded is a finding: it is
logged (and named as a probable rewrite when a recorded command has the same
name and arity) and answered with an error reply naming it.

Fault modes for client tests: --split cuts every reply at byte offsets into
separate writes, --trickle writes one byte at a time, --close-after closes the
connection after the first N bytes of any longer reply.

Exit status: 0 after Ctrl-C with no findings, 1 with findings, 2 usage.`

func newServeCmd() *cobra.Command {
	return newCommand("serve --golden DIR [flags]", "Serve recorded replies back to clients, byte for byte, with optional faults",
		serveLong, cobra.NoArgs, runServe)
}

func parseServeOptions(f serveFlags, log io.Writer) (replay.Options, error) {
	opt := replay.Options{SplitDelay: f.splitDelay, Trickle: f.trickle, CloseAfter: f.closeAfter}
	switch f.proto {
	case "auto", "":
	case "2", "3":
		opt.Proto, _ = strconv.Atoi(f.proto)
	default:
		return opt, usageErr("bad --proto-of-recording %q: want auto, 2 or 3", f.proto)
	}
	if f.split != "" {
		for _, p := range strings.Split(f.split, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || n <= 0 {
				return opt, usageErr("bad --split %q: want positive byte offsets such as 1,5", f.split)
			}
			opt.Split = append(opt.Split, n)
		}
	}
	if f.closeAfter < 0 || f.trickle < 0 {
		return opt, usageErr("--close-after and --trickle must not be negative")
	}
	var mu sync.Mutex
	opt.Logf = func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(log, "serve: "+format+"\n", a...)
	}
	return opt, nil
}

func runServe(ctx context.Context, stdout, stderr io.Writer, f serveFlags, _ []string) error {
	if f.dir == "" {
		return usageErr("serve needs --golden DIR")
	}
	opt, err := parseServeOptions(f, stderr)
	if err != nil {
		return err
	}
	d, err := golden.Load(f.dir)
	if err != nil {
		return usageErr("--golden: %v", err)
	}
	if d.Server.IsCluster() {
		// Its node ids, addresses, ports and slots are placeholders, which
		// no client could use (and some are not RESP).
		return usageErr("--golden %s was recorded on a %s: its replies hold placeholders for node ids, addresses, ports and slots; serve replays standalone recordings only", f.dir, d.Server.Topology)
	}
	srv, err := replay.New(d, opt)
	if err != nil {
		return usageErr("%v", err)
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return usageErr("--listen: %v", err)
	}
	fmt.Fprintf(stdout, "serving %s (%s, %d golden files) on %s\n", f.dir, d.Server.Name(), len(d.Files), ln.Addr())
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && ctx.Err() == nil {
		return serverErr(err)
	}
	if n := len(srv.Findings()); n > 0 {
		return &exitError{code: exitFindings, err: fmt.Errorf("%s (see above)", report.Count(n, "finding", "findings"))}
	}
	return nil
}
