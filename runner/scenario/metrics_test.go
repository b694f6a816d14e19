package scenario

import (
	"testing"
	"time"
)

func TestMetricsString(t *testing.T) {
	m := Metrics{"final": 6, "connections": 2, "p50_ms": 0.1234, "zz": 1, "aa": 2.5}
	if got, want := m.String(), "connections=2 final=6 p50_ms=0.123 aa=2.500 zz=1"; got != want {
		t.Errorf("counter: %q, want %q", got, want)
	}
	m = Metrics{"requests": 4, "keys": 3, "connections": 1}
	if got, want := m.String(), "connections=1 requests=4 keys=3"; got != want {
		t.Errorf("rate limit: %q, want %q", got, want)
	}
}

func TestCounterValue(t *testing.T) {
	for _, size := range []int{0, 5, 20, 950} {
		for _, n := range []int64{0, 7, 123456789} {
			b := counterValue(n, size)
			if size > 0 && len(b) < size {
				t.Errorf("size %d: %d bytes", size, len(b))
			}
			if got, err := parseCounter(b); err != nil || got != n {
				t.Errorf("size %d: parseCounter(%q) = %d, %v; want %d", size, b, got, err, n)
			}
		}
	}
	if _, err := parseCounter([]byte(`{"pad":"x"}`)); err == nil {
		t.Error("no counter field: no error")
	}
}

func TestQuantile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if q := quantile(ds, 0.5); q != 50*time.Millisecond {
		t.Errorf("p50 %v", q)
	}
	if q := quantile(ds, 0.99); q != 99*time.Millisecond {
		t.Errorf("p99 %v", q)
	}
	if q := quantile(nil, 0.5); q != 0 {
		t.Errorf("empty: %v", q)
	}
	if millis(1234567*time.Nanosecond) != 1.235 {
		t.Errorf("millis %v", millis(1234567*time.Nanosecond))
	}
}
