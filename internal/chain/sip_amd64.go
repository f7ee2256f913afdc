package chain

import "golang.org/x/sys/cpu"

// haveSipLanes tells whether sipLanes runs on this processor (it needs
// AVX2).
var haveSipLanes = cpu.X86.HasAVX2

// sipLanes computes SipHash-2-4 under k of fifteen messages of the same
// length at once: three groups of four lanes in vector registers and three
// lanes in general registers side by side. words holds n message words of
// fifteen lanes each (word i of message j at words[15i+j]), the last word
// already carrying the tail bytes and the length; out receives the
// fifteen hashes.
//
//go:noescape
func sipLanes(k *sipKey, words *uint64, n int, out *[lanes]uint64)
