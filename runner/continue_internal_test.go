package runner

import "testing"

// TestUndecidedClearsMore: a result that undecided or unchecked turns
// into an error or a skip keeps no failure, the later ones (More) neither
// (found by a review: JSON more_failures without a failure).
func TestUndecidedClearsMore(t *testing.T) {
	res := &Result{Status: Fail, Failure: &Failure{Message: "first"}, More: []*Failure{{Message: "second"}}}
	undecided(&held{res: res})
	res2 := &Result{Status: Fail, Failure: &Failure{Message: "first"}, More: []*Failure{{Message: "second"}}}
	unchecked([]*held{{res: res2}}, nil)
	for _, r := range []*Result{res, res2} {
		if r.Failure != nil || r.More != nil {
			t.Errorf("%s: Failure %v, More %v: want neither", r.Status, r.Failure, r.More)
		}
	}
}
