package psbt

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestBounded: a PSBT over Core's 100 MB limit is refused before reading,
// and a compact size announcing a huge count allocates nothing ahead of the
// bytes actually present.
func TestBounded(t *testing.T) {
	if _, err := Decode(make([]byte, MaxSize+1)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("oversized PSBT: %v", err)
	}
	// An unsigned tx announcing 33 554 432 inputs with none present.
	raw := append([]byte("psbt\xff"), 0x01, 0x00, 0x0a, 0x02, 0, 0, 0, 0xfe, 0, 0, 0, 0x02, 0x00)
	if _, err := Decode(raw); err == nil || !strings.Contains(err.Error(), "end of data") {
		t.Fatalf("huge input count: %v", err)
	}
}

// manyInputs builds a PSBT of n inputs with empty maps and one output.
func manyInputs(n int) []byte {
	var w writer
	w.u32(2)
	w.compactSize(uint64(n))
	for i := 0; i < n; i++ {
		var h [32]byte
		h[0], h[1], h[2] = byte(i), byte(i>>8), byte(i>>16)
		w.raw(h[:])
		w.u32(0)
		w.compactSize(0)
		w.u32(0xffffffff)
	}
	w.compactSize(1)
	w.u64(1000)
	w.bytes([]byte{0x51})
	w.u32(0)
	var p writer
	p.raw(Magic[:])
	p.pair([]byte{GlobalUnsignedTx}, w.b)
	p.u8(0)
	for i := 0; i < n; i++ {
		p.u8(0)
	}
	p.u8(0)
	return p.b
}

// TestManyInputs decodes and re-encodes a PSBT of 100 000 inputs (about
// 4 MB, within the RPC body limit).
func TestManyInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("4 MB PSBT; not in -short")
	}
	raw := manyInputs(100000)
	pk, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(pk.Inputs) != 100000 || string(pk.Serialize()) != string(raw) {
		t.Fatal("100 000-input PSBT does not round trip")
	}
}

// TestLargestPSBTMemory: the PSBT with the most inputs a 32 MiB request
// can carry (570 000 inputs in 22 MB of binary, base64 inflating it by a
// third) decodes allocating less than 16 times its size.
func TestLargestPSBTMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates about 250 MB; not in -short")
	}
	raw := manyInputs(570000)
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	p, err := Decode(raw)
	runtime.ReadMemStats(&b)
	if err != nil || len(p.Inputs) != 570000 {
		t.Fatal(err)
	}
	if alloc := b.TotalAlloc - a.TotalAlloc; alloc > 16*uint64(len(raw)) {
		t.Fatalf("%d MB allocated for a %d MB PSBT", alloc>>20, len(raw)>>20)
	}
}
