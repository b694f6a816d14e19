// Package resp is respcheck's hand-written RESP2/RESP3 wire codec.
//
// # Goals
//
//   - Decode every RESP2 and RESP3 type exactly as sent: each Value keeps
//     its Raw bytes next to the decoded fields, so callers can compare both
//     bytes and meaning. The codec never normalises: $-1, *-1 and _ stay
//     distinct kinds, error text keeps its "ERR " prefix, doubles and
//     integers keep the server's text.
//   - Be strict and precise about malformed input: every problem is a
//     *SyntaxError with a sentinel (ErrBadLength, ...), a stream offset and
//     an escaped excerpt; "incomplete" is never confused with "invalid".
//   - Be safe on hostile input: no panics, bounded recursion (Limits), and
//     no allocation driven by declared lengths, only by bytes received.
//   - Be fast: a Reader allocates nothing per reply in steady state.
//
// # Non-goals
//
// Connection handling, command semantics, RESP3 client state (HELLO), and
// routing of push frames: the caller does those. Inline commands are only
// written (Writer.WriteRaw), never parsed.
//
// # Strictness choices
//
// Lengths and counts are decimal digits without sign or leading zeros ("0"
// itself is fine); only $ and * accept -1, and only $ * % ~ > accept "?".
// Integers accept an optional + or - sign (the RESP3 spec allows both) and
// must fit int64. Doubles accept [+-]?digits[.digits][e[+-]digits] and
// inf/nan in any letter case, with optional sign. Booleans are exactly t or
// f. Big numbers are [+-]?digits. Simple lines may not contain \r or \n.
//
// # Terminology
//
//   - value: one RESP data item of any Kind, possibly an aggregate holding
//     other values.
//   - frame: a top-level value as it appears on the wire, from its first
//     byte (its attribute's, if it has one) to its final \r\n. Parse and
//     Reader.Read each return one frame.
//   - reply: a frame sent by the server in answer to a command. A reply is
//     a frame, but not every frame is a reply (see push).
//   - attribute: a RESP3 "|" map of metadata that precedes a value; it is
//     not a frame of its own but is attached to the value after it
//     (Value.Attr), and that value's Raw covers it.
//   - push: a RESP3 ">" frame the server sends out of band (pub/sub
//     messages, invalidations); it is not a reply to any command.
package resp
