package wallet

import (
	"bytes"
	"sort"
	"testing"
)

// TestDestOrderKey checks Core's order of destinations (the variant's
// alternatives in declaration order, then the hash bytes), which orders
// listreceivedbyaddress and listaddressgroupings.
func TestDestOrderKey(t *testing.T) {
	h20 := func(b byte) []byte { return bytes.Repeat([]byte{b}, 20) }
	h32 := func(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	want := [][]byte{
		cat([]byte{0x76, 0xa9, 20}, h20(1), []byte{0x88, 0xac}), // P2PKH
		cat([]byte{0x76, 0xa9, 20}, h20(9), []byte{0x88, 0xac}),
		cat([]byte{0xa9, 20}, h20(0), []byte{0x87}), // P2SH
		cat([]byte{0x00, 32}, h32(0)),               // P2WSH
		cat([]byte{0x00, 20}, h20(0)),               // P2WPKH
		cat([]byte{0x00, 20}, h20(2)),
		cat([]byte{0x51, 32}, h32(0)),      // P2TR
		{0x51, 0x02, 0x4e, 0x73},           // anchor
		cat([]byte{0x52, 2}, []byte{1, 2}), // witness v2
	}
	got := append([][]byte(nil), want...)
	for i, j := 0, len(got)-1; i < j; i, j = i+1, j-1 {
		got[i], got[j] = got[j], got[i]
	}
	sort.Slice(got, func(i, j int) bool { return bytes.Compare(destOrderKey(got[i]), destOrderKey(got[j])) < 0 })
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("position %d: got %x, want %x", i, got[i], want[i])
		}
	}
}
