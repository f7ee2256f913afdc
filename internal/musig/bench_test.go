package musig

import "testing"

func BenchmarkKeyAgg(b *testing.B) {
	keys := pick(b, []int{0, 1, 2})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := KeyAgg(keys); err != nil {
			b.Fatal(err)
		}
	}
}
