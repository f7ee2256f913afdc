package musig

import (
	"errors"
	"testing"
)

// FuzzKeyAgg splits the input into 33-byte keys and checks that KeyAgg
// returns a key on the curve or an *Error of a known kind, never both and
// never a panic.
func FuzzKeyAgg(f *testing.F) {
	for _, tc := range keyAggValid {
		var b []byte
		for _, k := range pick(f, tc.indices) {
			b = append(b, k...)
		}
		f.Add(b)
	}
	for _, tc := range keyAggErrors {
		var b []byte
		for _, k := range pick(f, tc.indices) {
			b = append(b, k[:33]...)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var keys [][]byte
		for len(b) >= 33 && len(keys) < 8 {
			keys = append(keys, b[:33])
			b = b[33:]
		}
		if len(b) > 0 && len(keys) < 8 {
			keys = append(keys, b)
		}
		agg, err := KeyAgg(keys)
		if err != nil {
			var e *Error
			if agg != nil || !errors.As(err, &e) {
				t.Fatalf("bad failure %v", err)
			}
			if e.Kind == ErrInvalidPubKey && (e.Index < 0 || e.Index >= len(keys)) {
				t.Fatalf("index %d of %d keys", e.Index, len(keys))
			}
			return
		}
		if !agg.IsOnCurve() {
			t.Fatal("aggregate not on the curve")
		}
	})
}
