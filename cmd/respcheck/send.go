package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/report"
	"github.com/respcheck/respcheck/runner/target"
)

// newSendCmd is `respcheck send`: commands, their exact replies.
func newSendCmd() *cobra.Command {
	var f targetFlags
	var proto int
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "send [flags] COMMAND [ARG...]",
		Short: "Send commands and print their exact reply bytes, escaped and as redis-cli shows them",
		Long: `Send connects (RESP2 without HELLO, or HELLO 3 with --proto 3), sends one
command as an array of blob strings, and prints the reply's exact bytes
escaped, then the reply as redis-cli prints it: the first frame that
arrives (SUBSCRIBE's confirmation, a push in RESP3, included). With no
address it starts a throwaway server. It waits --timeout for the reply
(a blocking command with no timeout of its own needs --timeout 0, or a
longer one); Ctrl-C ends the wait (exit 130).

With no COMMAND, it reads commands from standard input, one a line, split
into words as redis-cli and the server's inline commands split them
("quoted words", \x00 escapes), and sends them one after the other on the
one connection, each reply under a "> COMMAND" line:

  printf 'SET k v\nGET k\nOBJECT ENCODING k\n' | respcheck send --server redis-8.6.3`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if proto != 2 && proto != 3 {
				return usageErr("bad --proto %d: want 2 or 3", proto)
			}
			in := cmd.InOrStdin()
			if f, ok := in.(*os.File); ok && len(args) == 0 && isTerminal(f) {
				return usageErr("no command: give one as arguments, or pipe commands to standard input, one a line")
			}
			cmds, err := readInterruptibly(cmd.Context(), func() ([][][]byte, error) { return sendCommands(args, in) })
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			t, stopServer, err := f.open(ctx)
			if err != nil {
				return err
			}
			defer stopServer()
			t.printNotes(cmd.ErrOrStderr())
			c, err := t.Config.Dial(ctx, proto)
			if err != nil {
				return serverErr(fmt.Errorf("%s: %w", t.Addr, err))
			}
			defer c.Close()
			// Ctrl-C closes the connection, which ends the wait for the
			// reply (a BLPOP with no timeout, a frozen server).
			stopClose := context.AfterFunc(ctx, func() { c.Close() })
			defer stopClose()
			w := cmd.OutOrStdout()
			for _, a := range cmds {
				if len(cmds) > 1 {
					fmt.Fprintln(w, "> "+resp.EscapeCommand(a))
				}
				if err := sendOne(ctx, c, w, a, timeout); err != nil {
					return err
				}
			}
			return nil
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().IntVar(&proto, "proto", 2, "protocol: 2 (no HELLO) or 3 (HELLO 3 first)")
	choices(cmd.Flags(), "proto", "2", "3")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "wait this long for each reply (0: until it comes or Ctrl-C)")
	return cmd
}

// sendCommands is what send sends: the command of its arguments, else one
// command per line of in, split as inline commands are (resp.ReadCommand);
// a line whose quotes do not close is a usage error naming its number, no
// command at all one too.
func sendCommands(args []string, in io.Reader) ([][][]byte, error) {
	if len(args) > 0 {
		a := make([][]byte, len(args))
		for i, s := range args {
			a[i] = []byte(s)
		}
		return [][][]byte{a}, nil
	}
	var cmds [][][]byte
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 512<<20)
	for n := 1; sc.Scan(); n++ {
		// A space first: a line that starts with '*' is words too, not a
		// RESP array (the split skips leading spaces).
		line := append(append([]byte{' '}, bytes.TrimRight(sc.Bytes(), "\r")...), '\n')
		words, _, err := resp.ReadCommand(line)
		if err != nil {
			return nil, usageErr("standard input, line %d: %v", n, err)
		}
		if len(words) > 0 {
			cmds = append(cmds, slices.Clone(words))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, usageErr("standard input: %v", err)
	}
	if len(cmds) == 0 {
		return nil, usageErr("no command: give one as arguments, or one a line on standard input")
	}
	return cmds, nil
}

// readInterruptibly returns read's result, or the interruption when ctx
// ends first (Ctrl-C while a pipe stays open): read is left to finish on
// its own, the process is ending.
func readInterruptibly(ctx context.Context, read func() ([][][]byte, error)) ([][][]byte, error) {
	type result struct {
		cmds [][][]byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		cmds, err := read()
		done <- result{cmds, err}
	}()
	select {
	case r := <-done:
		return r.cmds, r.err
	case <-ctx.Done():
		return nil, &exitError{code: exitInterrupted, err: errors.New("interrupted while reading commands from standard input")}
	}
}

// sendOne sends one command on c and prints its reply: escaped, then as
// redis-cli shows it; it waits timeout at most (0: until it comes).
func sendOne(ctx context.Context, c *target.Conn, w io.Writer, args [][]byte, timeout time.Duration) error {
	deadline := time.Time{}
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	c.NC.SetDeadline(deadline)
	if _, err := c.W.Write(resp.AppendCommand(nil, args...)); err != nil {
		return sendErr(ctx, err, timeout)
	}
	if err := c.W.Flush(); err != nil {
		return sendErr(ctx, err, timeout)
	}
	v, err := c.R.Read()
	if err != nil {
		return sendErr(ctx, fmt.Errorf("read: %w", err), timeout)
	}
	fmt.Fprintln(w, resp.Escape(v.Raw))
	fmt.Fprintln(w, report.CLI(v.Raw))
	return nil
}

// sendErr is the error of a send that got no reply: interrupted (exit
// 130), past --timeout, or the server's problem (exit 3).
func sendErr(ctx context.Context, err error, timeout time.Duration) error {
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		return &exitError{code: exitInterrupted, err: errors.New("interrupted")}
	case errors.As(err, &ne) && ne.Timeout():
		return serverErr(fmt.Errorf("no reply within %v (--timeout; 0 waits for it)", timeout))
	}
	return serverErr(err)
}
