package schema

import (
	"bytes"
	"strconv"

	"github.com/respcheck/respcheck/resp"
)

// StepIO is what one step of a case wrote and read on its connection.
type StepIO struct {
	// Conn names the step's connection ("" is the case's default one).
	Conn string
	// Async is set for a step that sends and reads later (a read step on
	// Conn gets the reply).
	Async bool
	// Sent is the bytes written: one command or a pipeline of them (RESP
	// arrays of blob strings, or inline commands); nil for a read step.
	// SentCut says Sent holds only the head of what was written (a
	// golden's or a run's long blob): the commands' names and argument
	// counts are read from it.
	Sent    []byte
	SentCut bool
	// Reply is the bytes read, one frame per command; ReplyCut says they
	// are only the head (such a reply is skipped).
	Reply    []byte
	ReplyCut bool
}

// Step checks the replies of one step of a case (StartCase first). Each
// connection reads the commands out of the bytes it was sent (a command
// split across two writes counts once whole) and keeps them in order, and
// each reply frame answers the oldest; what a step that sends and is not
// async got no reply for (expect: no reply, a connection closed) is
// dropped when the step ends. A frame with no command to answer (SUBSCRIBE's second channel's
// confirmation, a reply to bytes that are not a command) is skipped as
// "not paired with a command".
func (r *Report) Step(set *Set, io StepIO, at Located) {
	switch {
	case io.SentCut:
		// A long command: its head names it and counts its arguments.
		args, ok := headArgs(io.Sent)
		if !ok {
			args = unparsed
		}
		r.pending[io.Conn] = append(r.pending[io.Conn], args)
		r.buf[io.Conn] = nil
	case len(io.Sent) > 0:
		r.send(io.Conn, io.Sent)
	}
	switch {
	case len(io.Reply) == 0:
	case io.ReplyCut:
		r.pop(io.Conn)
		r.skip(io.Conn, 1, "reply stored cut")
	default:
		fr, ok := frames(io.Reply)
		if !ok {
			r.skip(io.Conn, 1, "not RESP frames")
			break
		}
		for _, f := range fr {
			switch args := r.pop(io.Conn); {
			case args == nil:
				r.skip(io.Conn, 1, "not paired with a command")
			case len(args) == 0:
				r.skip(io.Conn, 1, "command not read (quoted inline, not blob strings)")
			default:
				r.reply(set, io.Conn, args, f, at)
			}
		}
	}
	if len(io.Sent) > 0 && !io.Async {
		delete(r.pending, io.Conn)
		delete(r.lost, io.Conn)
		delete(r.buf, io.Conn)
	}
}

// pop takes conn's oldest command waiting for its reply, or nil.
func (r *Report) pop(conn string) [][]byte {
	q := r.pending[conn]
	if len(q) == 0 || r.lost[conn] {
		return nil
	}
	r.pending[conn] = q[1:]
	return q[0]
}

// skip counts n skipped replies on conn (as not RESP3 on a RESP2 one).
func (r *Report) skip(conn string, n int, why string) {
	if r.connProto(conn) != 3 {
		r.NotRESP3 += n
		return
	}
	r.Skipped += n
	r.SkippedBy[why] += n
}

// unparsed stands in the queue for a command whose arguments were not
// read: its reply is skipped.
var unparsed = [][]byte{}

// send adds what a step wrote on conn to the connection's unread bytes
// and queues each whole command in them, as the server reads them
// (nextCommand). Bytes that are not a command (a protocol error: the
// server answers and closes) make the connection lost until the step ends.
func (r *Report) send(conn string, sent []byte) {
	buf := append(r.buf[conn], sent...)
	for len(buf) > 0 && !r.lost[conn] {
		args, rest, st := nextCommand(buf)
		switch st {
		case cmdMore:
			r.buf[conn] = buf
			return
		case cmdBad:
			r.lost[conn], rest = true, nil
		case cmdOK:
			r.pending[conn] = append(r.pending[conn], args)
		}
		buf = rest
	}
	r.buf[conn] = buf
}

// cmdStatus says what nextCommand found at the start of a write.
type cmdStatus int

const (
	cmdOK   cmdStatus = iota // a command (unparsed when it cannot be read)
	cmdSkip                  // an empty inline line
	cmdMore                  // a command whose rest comes in a later write
	cmdBad                   // bytes that are not a command
)

// nextCommand reads the first command of buf (not empty) as a server
// does (resp.ReadCommand): a RESP array of blob strings, or an inline
// command. A command the server refuses with a protocol error (unbalanced
// quotes, an array of other types) is unparsed: its reply is that error.
// rest is what follows it.
func nextCommand(buf []byte) (args [][]byte, rest []byte, st cmdStatus) {
	args, n, err := resp.ReadCommand(buf)
	switch {
	case n == 0 && err == nil:
		return nil, buf, cmdMore
	case n == 0:
		return nil, nil, cmdBad
	case err != nil:
		return unparsed, buf[n:], cmdOK
	case args == nil:
		return nil, buf[n:], cmdSkip
	}
	return args, buf[n:], cmdOK
}

// Commands returns the commands of one write, in order, as a server reads
// them (arrays of blob strings and inline lines; an inline line with
// unbalanced quotes or an array holding other kinds is an empty command). A write cut short,
// as a golden file keeps the head of a long command, gives the arguments
// its head holds, the rest nil; bytes that are not a command end the list.
func Commands(sent []byte) [][][]byte {
	var out [][][]byte
	for len(sent) > 0 {
		args, rest, st := nextCommand(sent)
		switch st {
		case cmdMore:
			if head, ok := headArgs(sent); ok {
				out = append(out, head)
			}
			return out
		case cmdBad:
			return out
		case cmdOK:
			out = append(out, args)
		}
		sent = rest
	}
	return out
}

// headArgs reads the arguments of the head of a command array: "*N\r\n"
// then as many whole "$len\r\n<bytes>\r\n" as the head holds, the rest
// nil.
func headArgs(head []byte) ([][]byte, bool) {
	line, rest, ok := bytes.Cut(head, []byte("\r\n"))
	if !ok || len(line) < 2 || line[0] != '*' {
		return nil, false
	}
	n, err := strconv.Atoi(string(line[1:]))
	if err != nil || n < 1 || n > 1<<20 {
		return nil, false
	}
	args := make([][]byte, n)
	for i := range args {
		hdr, after, ok := bytes.Cut(rest, []byte("\r\n"))
		if !ok || len(hdr) < 2 || hdr[0] != '$' {
			break
		}
		size, err := strconv.Atoi(string(hdr[1:]))
		if err != nil || size < 0 || len(after) < size {
			break
		}
		args[i], rest = after[:size], after[min(len(after), size+2):]
	}
	return args, args[0] != nil
}

// frames splits reply into its RESP frames.
func frames(reply []byte) (out [][]byte, ok bool) {
	for len(reply) > 0 {
		n, _, err := resp.Parse(reply)
		if err != nil || n == 0 {
			return nil, false
		}
		out = append(out, reply[:n])
		reply = reply[n:]
	}
	return out, true
}
