package clients

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/respcheck/respcheck/cases"
)

// namedDriver is a driver known by its name only: what startOrder reads.
type namedDriver string

func (d namedDriver) Library() string { return string(d) }
func (namedDriver) Version() string   { return "0" }
func (namedDriver) Protos() []int     { return []int{2} }
func (namedDriver) API() string       { return "none (test driver)" }
func (namedDriver) Open(context.Context, string, int) (Session, error) {
	return nil, fmt.Errorf("not a library")
}

// TestStartOrder: items start one of each library in turn, the items of
// exclusive cases last (each runs alone, so spread through the run each
// made every job wait for the items running to end).
func TestStartOrder(t *testing.T) {
	plain1, alone, plain2 := &cases.Case{Name: "p1"}, &cases.Case{Name: "x", Exclusive: true}, &cases.Case{Name: "p2"}
	var items []item
	for _, c := range []*cases.Case{plain1, alone, plain2} {
		for _, d := range []namedDriver{"a", "b"} {
			items = append(items, item{d: d, proto: 2, c: c})
		}
	}
	var got []string
	for _, i := range startOrder(items) {
		got = append(got, items[i].c.Name+"/"+items[i].d.Library())
	}
	want := []string{"p1/a", "p1/b", "p2/a", "p2/b", "x/a", "x/b"}
	if !slices.Equal(got, want) {
		t.Errorf("start order %v, want %v", got, want)
	}
}
