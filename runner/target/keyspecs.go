package target

import (
	"bytes"
	"slices"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// KeySpec is one key specification of a command, as COMMAND INFO gives it
// from Redis 7.0 and Valkey 7.2 on (the 9th element of an entry): where
// the search for its keys begins and how they are found from there. The
// names follow the reply ("begin_search" of type "index" or "keyword",
// "find_keys" of type "range" or "keynum"); a type respcheck does not
// know, or a spec flagged INCOMPLETE, makes the command's key positions a
// question for COMMAND GETKEYS.
type KeySpec struct {
	// Index is begin_search's index (type "index"): the position the
	// search begins at. Keyword and StartFrom are those of type
	// "keyword": the search begins after the keyword's first occurrence
	// from StartFrom (forward), or, StartFrom negative, its last from
	// argc+StartFrom (backward).
	Index     int
	Keyword   string
	StartFrom int
	// Range says find_keys is of type "range": LastKey (from the begin,
	// or negative from the end, with Limit dividing the arguments left),
	// KeyStep. Otherwise it is "keynum": the number of keys at
	// KeyNumIdx from the begin, the first at FirstKey, KeyStep apart.
	Range     bool
	LastKey   int
	Limit     int
	KeyStep   int
	KeyNumIdx int
	FirstKey  int
	// Unknown is set for a spec that cannot be evaluated here (a type not
	// described above, or the INCOMPLETE or VARIABLE_FLAGS flag, with
	// which the server itself asks the command's own key finder); NotKey
	// for a spec flagged NOT_KEY, which names no key.
	Unknown, NotKey bool
}

// parseKeySpecs reads the key specifications of a COMMAND INFO entry
// (element 8, a list of maps in RESP3 or flat key/value arrays in RESP2),
// or nil when the entry has none (Redis before 7.0).
func parseKeySpecs(e []resp.Value) []KeySpec {
	if len(e) < 9 || len(e[8].Elems) == 0 {
		return nil
	}
	var specs []KeySpec
	for _, v := range e[8].Elems {
		specs = append(specs, parseKeySpec(v))
	}
	return specs
}

// parseKeySpec reads one key specification.
func parseKeySpec(v resp.Value) KeySpec {
	ks := KeySpec{Unknown: true}
	f := specFields(v)
	for _, flag := range f["flags"].Elems {
		switch strings.ToUpper(string(flag.Str)) {
		case "INCOMPLETE", "VARIABLE_FLAGS":
			return ks
		case "NOT_KEY":
			ks.NotKey = true
		}
	}
	bs, fk := specFields(f["begin_search"]), specFields(f["find_keys"])
	bspec, fspec := specFields(bs["spec"]), specFields(fk["spec"])
	switch string(bs["type"].Str) {
	case "index":
		ks.Index = num(bspec["index"])
	case "keyword":
		ks.Keyword, ks.StartFrom = string(bspec["keyword"].Str), num(bspec["startfrom"])
	default:
		return ks
	}
	switch string(fk["type"].Str) {
	case "range":
		ks.Range, ks.LastKey, ks.KeyStep, ks.Limit = true, num(fspec["lastkey"]), num(fspec["keystep"]), num(fspec["limit"])
	case "keynum":
		ks.KeyNumIdx, ks.FirstKey, ks.KeyStep = num(fspec["keynumidx"]), num(fspec["firstkey"]), num(fspec["keystep"])
	default:
		return ks
	}
	ks.Unknown = ks.KeyStep <= 0
	return ks
}

// specFields reads a map (RESP3) or a flat key/value array (RESP2) by key.
func specFields(v resp.Value) map[string]resp.Value {
	m := map[string]resp.Value{}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		m[string(v.Elems[i].Str)] = v.Elems[i+1]
	}
	return m
}

// num is an integer reply's value (0 for anything else).
func num(v resp.Value) int { return int(v.Int) }

// SpecKeys returns the key positions of args (the command name first,
// then its subcommand's name for a container's) that i's key
// specifications give, as the server finds them (specKeys); ok is false
// when they cannot tell, and only COMMAND GETKEYS can.
func (i CommandInfo) SpecKeys(args [][]byte) (pos []int, ok bool) {
	return specKeys(i.Specs, args)
}

// specKeys returns the key positions of args (the command name first)
// that specs give, as the server finds them (Redis 8.6.3, db.c
// getKeysUsingKeySpecs), in ascending order, each once. ok is false when
// the server would not answer from its specs either, and COMMAND GETKEYS
// must: no specs, a spec that cannot be evaluated (KeySpec.Unknown), or
// arguments that contradict a spec (a number of keys that is not a
// non-negative integer, or whose keys would run past the arguments; the
// server then asks the command's own key finder).
func specKeys(specs []KeySpec, args [][]byte) (pos []int, ok bool) {
	if len(specs) == 0 || slices.ContainsFunc(specs, func(ks KeySpec) bool { return ks.Unknown }) {
		return nil, false
	}
	keySpecs := slices.DeleteFunc(slices.Clone(specs), func(ks KeySpec) bool { return ks.NotKey })
	for _, ks := range keySpecs {
		keys, valid := ks.keys(args)
		if !valid && len(keySpecs) == 1 && ks.noKeys(args) {
			// EVAL s 0, FCALL f 0: the server's spec search gives up on an
			// empty key range and its own key finder names none (COMMAND
			// GETKEYS: "The command has no key arguments").
			return nil, true
		}
		if !valid {
			return nil, false
		}
		pos = append(pos, keys...)
	}
	slices.Sort(pos)
	return slices.Compact(pos), true
}

// keys returns the positions one spec gives in args; valid is false when
// the arguments contradict it.
func (ks KeySpec) keys(args [][]byte) (pos []int, valid bool) {
	argc := len(args)
	first, found := ks.begin(args)
	if !found {
		return nil, true // the keyword is not there: no key of this spec
	}
	var last int
	switch {
	case !ks.Range:
		idx := first + ks.KeyNumIdx
		if idx >= argc || idx < 0 {
			return nil, false
		}
		n, ok := keyCount(args[idx])
		if !ok || n > argc {
			return nil, false
		}
		first += ks.FirstKey
		last = first + (int(n)-1)*ks.KeyStep
	case ks.LastKey >= 0:
		last = first + ks.LastKey
	case ks.Limit == 0:
		last = argc + ks.LastKey
	default:
		last = first + ((argc-first)/ks.Limit + ks.LastKey)
	}
	if last >= argc || last < first || first >= argc {
		return nil, false
	}
	for i := first; i <= last; i += ks.KeyStep {
		pos = append(pos, i)
	}
	return pos, true
}

// noKeys reports whether a keynum spec finds a count of 0 in args.
func (ks KeySpec) noKeys(args [][]byte) bool {
	if ks.Range {
		return false
	}
	first, found := ks.begin(args)
	idx := first + ks.KeyNumIdx
	if !found || idx < 0 || idx >= len(args) {
		return false
	}
	n, ok := keyCount(args[idx])
	return ok && n == 0
}

// keyCount reads a number of keys as the server does (Redis 8.6.3
// string2ll): "0", or digits without a leading zero or sign ("01" and
// "+1" are no number); a negative number is no count either.
func keyCount(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 18 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// begin is where the spec's search begins in args; found is false when
// its keyword is not there. A keyword is searched forward from StartFrom
// when it is positive, else backward from argc+StartFrom; never at the
// last argument forward, nor at the first backward (Redis 8.6.3).
func (ks KeySpec) begin(args [][]byte) (int, bool) {
	if ks.Keyword == "" {
		return ks.Index, true
	}
	argc := len(args)
	start, end, step := ks.StartFrom, argc-1, 1
	if ks.StartFrom <= 0 {
		start, end, step = argc+ks.StartFrom, 1, -1
	}
	for i := start; i != end && i >= 1 && i < argc; i += step {
		if cEqualFold(args[i], ks.Keyword) {
			return i + 1, true
		}
	}
	return 0, false
}

// cEqualFold compares an argument with a keyword as the server does (C's
// strcasecmp): up to the first NUL byte, ASCII letters folded and nothing
// else ("STORE\x00x" is STORE; "ſtore" is not).
func cEqualFold(arg []byte, kw string) bool {
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		arg = arg[:i]
	}
	if len(arg) != len(kw) {
		return false
	}
	for i := range arg {
		a, b := arg[i], kw[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}
