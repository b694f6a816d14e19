package schema

import (
	"fmt"
	"testing"
)

// TestCommands: the commands of a write as the server reads them,
// including a quoted inline line (split as sdssplitargs does), a line
// with unbalanced quotes (an empty command: the server refuses it) and a
// long command cut short (the arguments its head holds).
func TestCommands(t *testing.T) {
	for in, want := range map[string]string{
		"PING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n":  `[["PING"] ["GET" "k"]]`,
		`SET k "a b"` + "\r\n":                    `[["SET" "k" "a b"]]`,
		`SET k "a b` + "\r\nPING\r\n":             `[[] ["PING"]]`,
		"  \r\nECHO x\r\n":                        `[["ECHO" "x"]]`,
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$9\r\nabc": `[["SET" "k" ""]]`,
		"*x\r\nPING\r\n":                          `[]`,
	} {
		if got := fmt.Sprintf("%q", Commands([]byte(in))); got != want {
			t.Errorf("Commands(%q) = %s, want %s", in, got, want)
		}
	}
}
