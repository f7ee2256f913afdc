package script

import "testing"

func BenchmarkSolve(b *testing.B) {
	scripts := map[string][]byte{
		"p2wpkh":   mustHex(b, "0014"+h20),
		"p2tr":     mustHex(b, "5120"+h32),
		"p2pkh":    mustHex(b, "76a914"+h20+"88ac"),
		"multisig": mustHex(b, "5221"+keyC+"21"+keyC2+"52ae"),
	}
	for name, s := range scripts {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Solve(s)
			}
		})
	}
}
