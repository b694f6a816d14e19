package runner

import (
	"context"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// deleteKeys removes every key whose name starts with prefix, with SCAN
// MATCH and UNLINK, and returns how many it removed. prefix must not contain
// glob metacharacters other than the ones it escapes here.
func deleteKeys(c *conn, prefix string, timeout time.Duration) (int, error) {
	pattern := globEscape(prefix) + "*"
	cursor := "0"
	n := 0
	for {
		v, err := c.roundTrip(timeout, "SCAN", cursor, "MATCH", pattern, "COUNT", "1000")
		if err != nil {
			return n, err
		}
		if v.Kind != resp.Array || len(v.Elems) != 2 {
			return n, &errServer{cmd: "SCAN", v: v.Clone()}
		}
		cursor = string(v.Elems[0].Str)
		var keys []string
		for _, k := range v.Elems[1].Elems {
			keys = append(keys, string(k.Str))
		}
		if len(keys) > 0 {
			args := append([]string{"UNLINK"}, keys...)
			d, err := c.roundTrip(timeout, args...)
			if err != nil {
				return n, err
			}
			if d.Kind == resp.Integer {
				n += int(d.Int)
			}
		}
		if cursor == "0" {
			return n, nil
		}
	}
}

// dbSize returns DBSIZE of the target's database, or -1.
func dbSize(d *dialer) (int64, error) {
	c, err := d.dial(context.Background(), "dbsize", 2)
	if err != nil {
		return -1, err
	}
	defer c.close()
	v, err := c.roundTrip(d.timeout, "DBSIZE")
	if err != nil {
		return -1, err
	}
	if v.Kind != resp.Integer {
		return -1, &errServer{cmd: "DBSIZE", v: v.Clone()}
	}
	return v.Int, nil
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
