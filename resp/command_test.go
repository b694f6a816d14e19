package resp_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// TestReadCommand: the commands of a query buffer as the server reads
// them, with how many bytes each takes.
func TestReadCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		args string // fmt %q of the arguments
		n    int
		err  error
	}{
		{"*2\r\n$3\r\nGET\r\n$1\r\nk\r\nPING\r\n", `["GET" "k"]`, 20, nil},
		{"PING\r\n*1", `["PING"]`, 6, nil},
		{`SET k "a b" 'it\'s'` + "\n", `["SET" "k" "a b" "it's"]`, 20, nil},
		{"  \r\nPING\r\n", `[]`, 4, nil},
		{"*2\r\n$3\r\nGET\r\n", `[]`, 0, nil},
		{"PING", `[]`, 0, nil},
		{`SET "k v` + "\r\n", `["SET" "k" "v"]`, 10, resp.ErrUnbalancedQuotes},
		{"*2\r\n$3\r\nGET\r\n:1\r\n", `["GET" "1"]`, 17, resp.ErrNotBlobStrings},
	} {
		args, n, err := resp.ReadCommand([]byte(tc.in))
		if got := fmt.Sprintf("%q", args); got != tc.args || n != tc.n || !errors.Is(err, tc.err) {
			t.Errorf("ReadCommand(%q) = %s, %d, %v; want %s, %d, %v", tc.in, got, n, err, tc.args, tc.n, tc.err)
		}
	}
	var se *resp.SyntaxError
	if _, n, err := resp.ReadCommand([]byte("*x\r\n")); n != 0 || !errors.As(err, &se) {
		t.Errorf("a bad header: n %d, err %v; want a *SyntaxError", n, err)
	}
}
