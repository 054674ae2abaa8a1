package gen

// rng is SplitMix64 with our own range reduction, so that a seed maps to the
// same scenario forever, whatever the Go version (math/rand's derived
// functions may change between releases).
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed ^ 0x6a09e667f3bcc909} }

func (r *rng) u64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a value in [0, n); n must be > 0.
func (r *rng) intn(n int) int { return int(r.u64() % uint64(n)) }

// between returns a value in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// chance is true with probability percent/100.
func (r *rng) chance(percent int) bool { return r.intn(100) < percent }

func pick[T any](r *rng, xs ...T) T { return xs[r.intn(len(xs))] }

// shuffle permutes xs in place (Fisher-Yates).
func shuffle[T any](r *rng, xs []T) {
	for i := len(xs) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		xs[i], xs[j] = xs[j], xs[i]
	}
}
