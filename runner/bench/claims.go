package bench

import (
	"fmt"
	"strings"
)

// Claim is one ordering a seed article states for a table: the medians of
// Cells, in that order, increase (the first is the fastest, the fewest or
// the smallest). Judge fills Holds and Measured from the table's figures.
type Claim struct {
	// Article is the title of the article that makes the claim.
	Article string `json:"article"`
	// Text is what the article claims, in a few words.
	Text string `json:"text"`
	// Cells are the cells compared, smallest median first.
	Cells []cellRef `json:"cells"`
	// Holds is "holds", "does not hold", or "not measured" (a cell the
	// table lacks: another row shape, a method the server lacks).
	Holds string `json:"holds"`
	// Measured lists the medians compared, in Cells' order ("1 MB SET
	// IFDEQ: 23.3; 1 MB GET-then-SET: 45.8; ..."), in the table's unit.
	Measured string `json:"measured,omitempty"`
}

// cellRef names one cell of a table by its row label and column.
type cellRef struct {
	Row    string `json:"row"`
	Column string `json:"column"`
}

// articleClaims are the orderings the four seed articles publish, by
// table ID. Rows a table may lack (the remote shape of the contention
// tables has 1, 5 and 25 clients; loopback has 1 to 100) make a claim
// "not measured" there, not false.
var articleClaims = map[string][]Claim{
	"overwrite": {claim("at 1 MB, SET IFDEQ beats GET then SET, which beats a Lua CAS (transfer dominates)",
		"1 MB", "SET IFDEQ", "1 MB", "GET-then-SET", "1 MB", "Lua CAS")},
	"batch": {
		claim("MSET costs less per item than SET at 1000 items", "1000", "MSET", "1000", "SET"),
		claim("HMSET costs less per item than HSET at 1000 items", "1000", "HMSET", "1000", "HSET"),
	},
	"batch-read":       {claim("MGET costs less per item than GET at 1000 items", "1000", "MGET", "1000", "GET")},
	"batch-aof-always": {claim("under appendfsync always, MSET costs less per item than SET at 1000 items", "1000", "MSET", "1000", "SET")},
	"incr-expire": {claim("pipelining INCR and EXPIRE costs less than two blocking round trips",
		"INCR + EXPIRE, pipelined", "per request", "INCR + EXPIRE, blocking", "per request")},
	"contention-lost": {claim("at 100 clients GET then SET loses updates that Lua does not",
		"100", "Lua", "100", "GET then SET")},
	"contention-commands": {claim("at 100 clients WATCH needs more commands per update than Lua",
		"100", "Lua", "100", "WATCH/MULTI/EXEC")},
	"contention-time": {
		claim("at 100 clients Lua finishes before WATCH", "100", "Lua", "100", "WATCH/MULTI/EXEC"),
		claim("at 25 clients (the remote table) Lua finishes far before WATCH", "25", "Lua", "25", "WATCH/MULTI/EXEC"),
	},
	"contention-p99": {claim("at 25 clients WATCH's p99 per update is above Lua's", "25", "Lua", "25", "WATCH/MULTI/EXEC")},
	"increx-crash": {claim("crashes between INCR and EXPIRE leave keys without a TTL; a Lua script leaves none",
		"Lua", "keys without TTL", "INCR + EXPIRE", "keys without TTL")},
	"script-drop": {claim("longer scripts cut another client's throughput more", "10ms scripts", "drop", "200ms scripts", "drop")},
}

// The four articles the bench tables come from, by title.
const (
	articleDigest = "Redis 8.4's digest-based SET option cuts a 1MB compare-and-set from 4.3ms to 1.6ms"
	articleLua    = "Why Lua Scripts Beat WATCH When Many Clients Update One Redis Key"
	articleBench  = "Benchmarking Redis"
	articleIncrex = "Valkey 9.2's INCREX command removes the crash window between INCR and EXPIRE"
)

// tableArticle is the article each claimed table comes from, by the
// prefix of its ID.
var tableArticle = []struct{ prefix, title string }{
	{"overwrite", articleDigest}, {"digest", articleDigest},
	{"contention", articleLua},
	{"batch", articleBench}, {"script", articleLua},
	{"incr-expire", articleIncrex}, {"increx", articleIncrex},
}

// ArticleOf is the title of the article table ID comes from ("" for
// none).
func ArticleOf(id string) string {
	for _, a := range tableArticle {
		if strings.HasPrefix(id, a.prefix) {
			return a.title
		}
	}
	return ""
}

// claim builds a Claim from text and (row, column) pairs.
func claim(text string, rowCol ...string) Claim {
	c := Claim{Text: text}
	for i := 0; i+1 < len(rowCol); i += 2 {
		c.Cells = append(c.Cells, cellRef{Row: rowCol[i], Column: rowCol[i+1]})
	}
	return c
}

// judge returns the article's claims for t, each judged on t's medians.
func judge(t *Table) []Claim {
	var out []Claim
	for _, c := range articleClaims[t.ID] {
		c.Cells = append([]cellRef(nil), c.Cells...)
		c.Article = ArticleOf(t.ID)
		var figures []string
		var medians []float64
		for _, ref := range c.Cells {
			s, ok := t.cell(ref)
			if !ok {
				break
			}
			medians = append(medians, s.Median)
			figures = append(figures, fmt.Sprintf("%s %s: %s", ref.Row, ref.Column, figure(s.Median)))
		}
		c.Holds = "not measured"
		if len(medians) == len(c.Cells) {
			c.Holds, c.Measured = "holds", strings.Join(figures, "; ")
			for i := 1; i < len(medians); i++ {
				if medians[i-1] >= medians[i] {
					c.Holds = "does not hold"
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// cell finds the supported cell ref names.
func (t *Table) cell(ref cellRef) (Stat, bool) {
	col := -1
	for i, c := range t.Columns {
		if c == ref.Column {
			col = i
		}
	}
	for _, r := range t.Rows {
		if r.Label == ref.Row && col >= 0 && col < len(r.Cells) && r.Cells[col].Supported {
			return r.Cells[col], true
		}
	}
	return Stat{}, false
}
