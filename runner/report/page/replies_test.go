package page

import (
	"bytes"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/replies"
	"github.com/respcheck/respcheck/runner/target"
)

// TestRepliesSection: a clients --generate JSON report (read back from a
// file as respcheck report reads it) is a section of its own: a row per
// client with the frames it was served and judged, then each client's
// findings with the shrunk frame, its class, the EVAL that makes a server
// send it and the judge's notes; a client without findings has no list.
func TestRepliesSection(t *testing.T) {
	rep := replies.JSONReport{GeneratedReplies: 1, Seed: 42, Server: target.Server{Family: "redis", Version: "8.6.3"}, Seconds: 61,
		Clients: []clients.ClientInfo{{Name: "go-redis/resp2", Library: "go-redis", Version: "v9.23.0", Proto: 2},
			{Name: "ioredis-5.11.1/resp2", Library: "ioredis-5.11.1", Version: "5.11.1", Proto: 2}},
		Judged: map[string]int{"go-redis/resp2": 310, "ioredis-5.11.1/resp2": 400},
		Served: map[string]int{"go-redis/resp2": 400, "ioredis-5.11.1/resp2": 400},
		Findings: []replies.JSONFinding{{Client: "go-redis/resp2", Proto: 2, Verdict: "desync", Rule: "desync", Kind: "array", Count: 9,
			Class: "served", Frame: `"*3\r\n-LOADING x\r\n:1\r\n:2\r\n"`, Shrunk: `"*2\r\n-LOADING loading\r\n$-1\r\n"`, Alone: true,
			Lua: "return {{err='LOADING loading'}, false}", Notes: []string{"reply: RESP array decoded as *proto.LoadingError"},
			Canary: "ECHO c returned nil"}}}
	in := loadJSON(t, "generated.json", rep)
	if in.Replies == nil {
		t.Fatalf("Load: %+v", in)
	}
	p := Build([]Input{in})
	if len(p.Replies) != 1 || len(p.Replies[0].Clients) != 2 {
		t.Fatalf("sections %+v", p.Replies)
	}
	if c := p.Replies[0].Clients[0]; c.Judged != 310 || c.Served != 400 || len(c.Findings) != 1 {
		t.Errorf("go-redis row %+v", c)
	}
	if c := p.Replies[0].Clients[1]; len(c.Findings) != 0 {
		t.Errorf("ioredis row %+v", c)
	}
	var out bytes.Buffer
	if err := Write(&out, []Input{in}); err != nil {
		t.Fatal(err)
	}
	html := out.String()
	for _, want := range []string{`<section class="replies" id="replies-0">`, "redis 8.6.3", "seed 42", "310 <small>of 400 served</small>",
		"<code>desync</code> (desync, array)", `&#34;*2\r\n-LOADING loading\r\n$-1\r\n&#34;`, "EVAL", "decoded as *proto.LoadingError", "canary: ECHO c returned nil"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Count(html, "<h3>") != 1 {
		t.Errorf("want one client's findings listed:\n%s", html)
	}
}
