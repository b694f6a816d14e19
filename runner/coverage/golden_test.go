package coverage

import (
	"testing"

	"github.com/respcheck/respcheck/runner/golden"
)

// TestMeasureGolden: a recorded step that pipelines two commands counts
// both, a head cut short still names its command, a case recorded in both
// protocols counts once with both protocols, and a skipped case counts
// nothing.
func TestMeasureGolden(t *testing.T) {
	docs := []Command{{Name: "GET"}, {Name: "SET"}, {Name: "CLIENT", Container: true}, {Name: "CLIENT INFO"}, {Name: "DEL"}}
	step := func(sent string) *golden.Step { return &golden.Step{Sent: &golden.Blob{Data: []byte(sent)}} }
	pipelined := step("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")
	cut := step("*2\r\n$6\r\nCLIENT\r\n$4\r\nINFO\r\n*2\r\n$3\r\nDEL\r\n$100\r\nab") // the rest not kept
	f := &golden.File{Path: "a.yaml", Cases: []*golden.Case{
		{Name: "c", Proto: 2, Steps: []*golden.Step{pipelined, cut}},
		{Name: "c", Proto: 3, Steps: []*golden.Step{pipelined, cut}},
		{Name: "skipped", Proto: 2, Status: "skip", Steps: []*golden.Step{step("*1\r\n$3\r\nDEL\r\n")}},
	}}
	rep := MeasureGolden("redis 8.6.3", docs, &golden.Dir{Files: map[string]*golden.File{"a": f}})
	want := map[string]Row{
		"GET":         {Cases: 1, Steps: 1, Protos: []int{2, 3}},
		"SET":         {Cases: 1, Steps: 1, Protos: []int{2, 3}},
		"CLIENT INFO": {Cases: 1, Steps: 1, Protos: []int{2, 3}},
		"DEL":         {Cases: 1, Steps: 1, Protos: []int{2, 3}},
	}
	for _, r := range rep.Rows {
		w := want[r.Name]
		if r.Cases != w.Cases || r.Steps != w.Steps || len(r.Protos) != len(w.Protos) {
			t.Errorf("%s: %+v, want %+v", r.Name, r, w)
		}
	}
	if rep.Cases != 2 || rep.Covered != 4 || rep.Counted != 4 {
		t.Errorf("cases %d, covered %d of %d", rep.Cases, rep.Covered, rep.Counted)
	}
}
