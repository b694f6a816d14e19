package capture_test

import (
	"bytes"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/capture"
)

// TestWholeScanIsCompared: an HSCAN, SSCAN or ZSCAN from cursor 0 that
// got every element at once (cursor 0 back) expects those elements in any
// order (it was any reply: an application's HSCAN loop was never
// compared); one that stopped at another cursor, started at one, got as
// many elements as its COUNT or more (whole only in a listpack), or has
// a MATCH (the matches among COUNT) stays any reply. Captured in another order than Redis 8.6.3 answers;
// replayed there and on 7.0.15.
func TestWholeScanIsCompared(t *testing.T) {
	ex := exchanges(
		step{1, 1, 2, ":2\r\n", []string{"HSET", "h", "a", "1", "b", "2"}},
		step{1, 3, 4, "*2\r\n$1\r\n0\r\n*4\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\na\r\n$1\r\n1\r\n", []string{"HSCAN", "h", "0"}},
		step{1, 5, 6, ":2\r\n", []string{"SADD", "s", "x", "y"}},
		step{1, 7, 8, "*2\r\n$1\r\n0\r\n*2\r\n$1\r\ny\r\n$1\r\nx\r\n", []string{"sscan", "s", "0", "COUNT", "100"}},
		step{1, 9, 10, ":1\r\n", []string{"ZADD", "z", "1.5", "m"}},
		step{1, 11, 12, "*2\r\n$1\r\n0\r\n*2\r\n$1\r\nm\r\n$3\r\n1.5\r\n", []string{"ZSCAN", "z", "0"}},
		step{1, 13, 14, "*2\r\n$2\r\n17\r\n*2\r\n$1\r\ny\r\n$1\r\nx\r\n", []string{"SSCAN", "s", "0"}},
		step{1, 15, 16, "*2\r\n$1\r\n0\r\n*0\r\n", []string{"SSCAN", "s", "17"}},
		// more members than COUNT: whole only in a listpack
		step{1, 17, 18, "*2\r\n$1\r\n0\r\n*3\r\n$1\r\ny\r\n$1\r\nx\r\n$1\r\nz\r\n", []string{"SSCAN", "s", "0", "COUNT", "2"}},
		// exactly COUNT: a hashtable may stop at another cursor
		step{1, 19, 20, "*2\r\n$1\r\n0\r\n*2\r\n$1\r\ny\r\n$1\r\nx\r\n", []string{"SSCAN", "s", "0", "COUNT", "2"}},
		// MATCH: the matches among COUNT, however many the key holds
		step{1, 21, 22, "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nx\r\n", []string{"SSCAN", "s", "0", "MATCH", "x*"}},
	)
	src := capture.CaseFile(ex, capture.Options{Suite: "s", Case: "scan"})
	for _, want := range []string{
		`value: {array: [{blob: "0"}, {array_unordered: [{blob: "b"}, {blob: "2"}, {blob: "a"}, {blob: "1"}]}]} # every element at once, in any order`,
		`value: {array: [{blob: "0"}, {array_unordered: [{blob: "y"}, {blob: "x"}]}]}`,
		`value: {array: [{blob: "0"}, {array_unordered: [{blob: "m"}, {blob: "1.5"}]}]}`,
	} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("the file lacks %s:\n%s", want, src)
		}
	}
	if n := bytes.Count(src, []byte("any: true # volatile")); n != 5 {
		t.Errorf("%d any-reply steps, want the SSCAN that stopped at 17, the one from it, those of COUNT or more and the MATCH:\n%s", n, src)
	}
	f, err := cases.Load("scan.yaml", src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	for _, build := range []string{"redis-8.6.3", "redis-7.0.15"} { // 7.0: a set of strings in a hashtable
		if res := replay(t, f, build); res.Status != runner.Pass {
			t.Errorf("replay on %s: %s %s %+v\n%s", build, res.Status, res.Reason, res.Failure, src)
		}
	}
}
