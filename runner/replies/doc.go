// Package replies generates the replies a server may send, serves them to
// client libraries through the client view's recording proxy, and shrinks
// each finding to the smallest frame that gives the same verdict.
//
// A generator makes frames (Frame) from a seed, in RESP2 or RESP3: every
// type, empty, nested, wide and deep aggregates, map keys that are
// aggregates, attributes, pushes before a reply, special and extreme
// numbers, strings that are not UTF-8 or hold \r\n. Each frame has a Class:
// Served (a pinned build sends the shape; Frame.Lua gives an EVAL script
// that makes a server send it, when Lua can express it) or SpecOnly.
package replies
