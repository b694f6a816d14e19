package cases

import (
	"testing"

	"github.com/respcheck/respcheck/resp"
)

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
