package cases

import (
	"strings"
	"testing"
)

func TestVolatileField(t *testing.T) {
	src := `suite: v
cases:
  - name: c
    steps:
      - send: [CLIENT, ID]
        volatile: true
      - send: [PING]
        reply: "+PONG\r\n"
`
	f, err := Load("v.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if st := f.Cases[0].Steps; !st[0].Volatile || st[1].Volatile {
		t.Errorf("Volatile = %v, %v; want true, false", st[0].Volatile, st[1].Volatile)
	}

	bad := map[string]string{
		"not a bool": "      - {send: [PING], volatile: yes please}\n",
		"async":      "      - {send: [PING], async: true, volatile: true}\n      - {read: true}\n",
		"sleep":      "      - {sleep: 1ms, volatile: true}\n",
	}
	for name, steps := range bad {
		_, err := Load("v.yaml", []byte("suite: v\ncases:\n  - name: c\n    steps:\n"+steps))
		if err == nil || !strings.Contains(err.Error(), "volatile") {
			t.Errorf("%s: err = %v, want an error naming volatile", name, err)
		}
	}
}
