package cases

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// caseHash is Case.Hash: the hex SHA-256 of the case's YAML node and of
// the nodes of the file that apply to every case (its suite-level tags
// and requires; nil when absent), each written by writeNode.
func caseHash(item *yaml.Node, fileLevel ...*yaml.Node) string {
	h := sha256.New()
	for _, n := range fileLevel {
		writeNode(h, n)
	}
	writeNode(h, item)
	return hex.EncodeToString(h.Sum(nil))
}

// writeNode writes what a node says, and nothing of how it is written:
// its kind, its resolved tag, its value and its children, length-prefixed
// (aliases are resolved before); comments, quoting and flow or block
// style are left out, so that reformatting a case or editing a comment
// does not make its golden stale.
func writeNode(h hash.Hash, n *yaml.Node) {
	if n == nil {
		h.Write([]byte{0})
		return
	}
	field := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	field(strconv.Itoa(int(n.Kind)))
	field(n.ShortTag())
	field(n.Value)
	field(strconv.Itoa(len(n.Content)))
	for _, c := range n.Content {
		writeNode(h, c)
	}
}
