package cases

import (
	"testing"

	"github.com/respcheck/respcheck/resp"
)

var validFrames = []string{
	"+OK\r\n", "+\r\n", "-ERR x\r\n", ":0\r\n", ":-12\r\n", ":+3\r\n",
	"$0\r\n\r\n", "$5\r\nhello\r\n", "$2\r\n\r\n\r\n", "$-1\r\n",
	"*0\r\n", "*-1\r\n", "*2\r\n$1\r\na\r\n:1\r\n", "*1\r\n*1\r\n*0\r\n",
	"_\r\n", ",1.5\r\n", ",inf\r\n", ",-nan\r\n", "#t\r\n", "#f\r\n",
	"!3\r\nERR\r\n", "=8\r\ntxt:abcd\r\n", "(123456789012345678901234567890\r\n",
	"%1\r\n+a\r\n:1\r\n", "%0\r\n", "~2\r\n:1\r\n:2\r\n", ">2\r\n$1\r\nx\r\n$1\r\ny\r\n",
	"|1\r\n+ttl\r\n:3600\r\n$6\r\ncached\r\n",
	"$?\r\n;4\r\nHell\r\n;1\r\no\r\n;0\r\n",
	"*?\r\n:1\r\n:2\r\n.\r\n", "%?\r\n+a\r\n:1\r\n.\r\n", "~?\r\n.\r\n",
}

var invalidFrames = []string{
	"", "+OK", "+OK\r", "+OK\n", "+OK\r\nextra", "+O\rK\r\n",
	":x\r\n", ":\r\n", "$3\r\nab\r\n", "$3\r\nabcd\r\n", "$x\r\n", "$-2\r\n",
	"*2\r\n:1\r\n", "*x\r\n", "#x\r\n", "_x\r\n", "=3\r\ntxt\r\n", "(1.5\r\n",
	"%1\r\n+a\r\n", "?\r\n", "|1\r\n+a\r\n:1\r\n", "*?\r\n:1\r\n",
}

func TestCheckFrame(t *testing.T) {
	for _, f := range validFrames {
		if err := checkFrame([]byte(f)); err != nil {
			t.Errorf("checkFrame(%q): %v", f, err)
		}
	}
	for _, f := range invalidFrames {
		if err := checkFrame([]byte(f)); err == nil {
			t.Errorf("checkFrame(%q) accepted it", f)
		}
	}
}

// The static check must agree with the resp package's parser on whether a
// reply is exactly one complete frame.
func TestCheckFrameAgreesWithResp(t *testing.T) {
	for _, f := range append(append([]string{}, validFrames...), invalidFrames...) {
		mine := checkFrame([]byte(f)) == nil
		n, _, err := resp.Parse([]byte(f))
		theirs := err == nil && n == len(f) && n > 0
		if mine != theirs {
			t.Errorf("%q: checkFrame ok=%v, resp.Parse n=%d err=%v", f, mine, n, err)
		}
	}
}

// The names accepted by {type: NAME} include resp.Kind's String names.
func TestKindNames(t *testing.T) {
	for k := resp.SimpleString; k <= resp.Push; k++ {
		name := kindName(k)
		if got, ok := kindByName(name); !ok || got != k {
			t.Errorf("kind %d: canonical name %q does not round-trip", k, name)
		}
		if got, ok := kindByName(k.String()); !ok || got != k {
			t.Errorf("resp name %q of kind %d is not accepted", k.String(), k)
		}
	}
}
