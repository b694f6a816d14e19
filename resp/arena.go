package resp

// arena hands out []Value memory that stays put until reset. Small requests
// are carved from fixed-size chunks; large ones get dedicated slices that
// are reused (first fit) after reset. A nil *arena allocates with make.
type arena struct {
	chunks [][]Value
	ci     int // current chunk
	used   int // values used in chunks[ci]
	big    [][]Value
	bi     int // big[:bi] are in use
}

const chunkLen = 256

func (a *arena) reset() {
	a.ci, a.used, a.bi = 0, 0, 0
}

func (a *arena) alloc(n int) []Value {
	if a == nil {
		return make([]Value, n)
	}
	if n > chunkLen/4 {
		return a.allocBig(n)
	}
	for {
		if a.ci < len(a.chunks) {
			c := a.chunks[a.ci]
			if a.used+n <= len(c) {
				s := c[a.used : a.used+n : a.used+n]
				a.used += n
				return s
			}
			a.ci++
			a.used = 0
			continue
		}
		a.chunks = append(a.chunks, make([]Value, chunkLen))
	}
}

func (a *arena) allocBig(n int) []Value {
	for j := a.bi; j < len(a.big); j++ {
		if cap(a.big[j]) >= n {
			a.big[j], a.big[a.bi] = a.big[a.bi], a.big[j]
			s := a.big[a.bi][:n:n]
			a.bi++
			return s
		}
	}
	a.big = append(a.big, make([]Value, n))
	j := len(a.big) - 1
	a.big[j], a.big[a.bi] = a.big[a.bi], a.big[j]
	a.bi++
	return a.big[a.bi-1]
}

func (a *arena) one() *Value { return &a.alloc(1)[0] }
