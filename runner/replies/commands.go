package replies

import (
	"bytes"

	"fmt"
	"github.com/respcheck/respcheck/runner/clients"
	"slices"
	"strconv"
	"strings"
)

// The command a frame answers is a function of its ID alone (commandOf),
// so that every protocol's generator, the cases that send the commands,
// the proxy that answers them and the shrinker (whose candidates keep the
// ID's residue mod commandPeriod) agree on it.

// keyTag starts the name of a key whose command the proxy answers with a
// frame: the case key {key:g<id>}.
const keyTag = ":g"

// frameKey stands for the frame's key in frameCommands, frameKey2 for a
// second key (a second channel), the first with "b" after its id.
const (
	frameKey  = "\x00key"
	frameKey2 = "\x00key2"
)

// frameCommands are the commands a frame may answer, by its ID (ID mod
// the count): GET most often (every library's generic call returns its
// reply as decoded), and commands whose replies libraries convert by
// name (redis-py's response callbacks: HGETALL pairs to a dict, ZRANGE
// WITHSCORES and ZSCORE to floats, TTL to an int, SCAN to a cursor and a
// list, INFO and CONFIG GET parsed; ioredis's HGETALL transformer), so
// that a frame reaches each library's conversion of it too. Each only
// reads (a key, a pattern or a section name), so that the command the
// proxy forwards before it answers changes nothing on the server.
var frameCommands = [][]string{
	{"GET", frameKey},
	{"HGETALL", frameKey},
	{"GET", frameKey},
	{"ZRANGE", frameKey, "0", "-1", "WITHSCORES"},
	{"GET", frameKey},
	{"SMEMBERS", frameKey},
	{"GET", frameKey},
	{"ZSCORE", frameKey, "m"},
	{"TTL", frameKey},
	{"XRANGE", frameKey, "-", "+"},
	{"CONFIG", "GET", frameKey},
	{"SCAN", "0", "MATCH", frameKey},
	{"INFO", frameKey},
	{"HMGET", frameKey, "f"},
	{"LRANGE", frameKey, "0", "-1"},
	{"EXISTS", frameKey},
}

// terminalCommands answer one frame in terminalEvery (in turn): commands
// that change the connection's state, its protocol (HELLO 3 through a
// library's generic call: the reply is a RESP3 map whatever the library
// expects) or subscribed (a subscribe confirmation, a push in RESP3, where
// the library expected one reply), each the last its connection sends.
var terminalCommands = [][]string{
	{"HELLO", "3", "SETNAME", frameKey},
	{"SUBSCRIBE", frameKey},
	{"UNSUBSCRIBE", frameKey},
	{"PSUBSCRIBE", frameKey},
	{"PUNSUBSCRIBE", frameKey},
	// Two channels: two confirmations, where a library may read one.
	{"SUBSCRIBE", frameKey, frameKey2},
	{"UNSUBSCRIBE", frameKey, frameKey2},
	{"PUNSUBSCRIBE", frameKey, frameKey2},
}

const terminalEvery = 64

// commandPeriod is the period of commandOf in the ID.
var commandPeriod = terminalEvery * len(terminalCommands)

// commandArgs is frame id's command with frameKey for its key.
func commandArgs(id int) []string {
	r := id % commandPeriod
	if r%terminalEvery == terminalEvery-1 {
		return slices.Clone(terminalCommands[r/terminalEvery])
	}
	return slices.Clone(frameCommands[r%len(frameCommands)])
}

// terminal reports whether frame id's command changes the connection's
// state (terminalCommands).
func terminal(id int) bool { return id%terminalEvery == terminalEvery-1 }

// commandOf is the command that frame id answers, its key written as the
// case writes it ({key:g<id>}).
func commandOf(id int) []string { return commandWith(id, fmt.Sprintf("{key%sg%d}", ":", id)) }

// commandWith is frame id's command with key for its key (and key with
// "b" inside its closing brace, or after it, for its second key).
func commandWith(id int, key string) []string {
	cmd := commandArgs(id)
	for i, a := range cmd {
		switch a {
		case frameKey:
			cmd[i] = key
		case frameKey2:
			if k, ok := strings.CutSuffix(key, "}"); ok {
				cmd[i] = k + "b}"
			} else {
				cmd[i] = key + "b"
			}
		}
	}
	return cmd
}

// frameID is the frame a command asks for: the id of its argument that
// ends in keyTag and digits (rc:{...}:g<id>), when the command is the
// one commandOf gives that id.
func frameID(args [][]byte) (int, bool) {
	for _, a := range args {
		i := bytes.LastIndex(a, []byte(keyTag))
		if i < 0 {
			continue
		}
		id, err := strconv.Atoi(string(a[i+len(keyTag):]))
		if err != nil || id < 0 {
			continue
		}
		want := commandArgs(id)
		if len(args) == len(want) && strings.EqualFold(string(args[0]), want[0]) {
			return id, true
		}
	}
	return 0, false
}

// followed reports whether frame id's command is followed, on its
// connection, by a PING (a subscribe command's): the frame's reply a
// library left unread, or a subscribed connection's PING reply (RESP2's
// array), shows there (a desync), and the PING's verdict is the frame's.
func followed(id int) bool { return terminal(id) && commandArgs(id)[0] != "HELLO" }

// stepFrames pairs each step of res that a frame answered with the
// frame's id; a follow-up PING (followed) gets its frame's id, follow
// true.
func stepFrames(steps []clients.StepView) []framedStep {
	var out []framedStep
	last := -1
	for i := range steps {
		sv := &steps[i]
		id, ok := frameID(sv.Args)
		switch {
		case ok:
			out = append(out, framedStep{id: id, sv: sv})
			last = id
		case last >= 0 && followed(last) && len(sv.Args) == 1 && strings.EqualFold(string(sv.Args[0]), "PING"):
			out = append(out, framedStep{id: last, sv: sv, follow: true})
			last = -1
		}
	}
	return out
}

// framedStep is a step and the frame it answered (stepFrames).
type framedStep struct {
	id     int
	sv     *clients.StepView
	follow bool
}
