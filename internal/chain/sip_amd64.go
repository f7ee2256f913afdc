package chain

import "golang.org/x/sys/cpu"

// haveSipLanes tells whether sipLanes runs on this processor (it needs
// AVX2).
var haveSipLanes = cpu.X86.HasAVX2

// sipLanes computes SipHash-2-4 under k of fourteen messages of the same
// length at once: three groups of four lanes in vector registers and two
// lanes in general registers side by side. words holds n message words of
// fourteen lanes each (word i of message j at words[14i+j]), the last word
// already carrying the tail bytes and the length; out receives the
// fourteen hashes.
//
//go:noescape
func sipLanes(k *sipKey, words *uint64, n int, out *[lanes]uint64)
