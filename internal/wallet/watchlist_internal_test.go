package wallet

import (
	"bytes"
	"context"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
)

// watchTPrv is BIP 32 test vector 1's master key on the test networks.
const watchTPrv = "tprv8ZgxMBicQKsPeDgjzdC36fs6bMjGApWDNLR9erAXMs5skhMv36j9MV5ecvfavji5khqjWaWSFhN3YcCUUdiKH6isR4Pwy3U5y5egddBr16m"

// expandScripts is the reference: every index's scripts by Expand.
func expandScripts(t *testing.T, d *descriptor.Descriptor, start, end int64) [][]byte {
	t.Helper()
	var out [][]byte
	for i := start; i < end; i++ {
		outs, err := d.Expand(uint32(i), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			out = append(out, o.ScriptPubKey)
		}
	}
	return out
}

func sameScripts(t *testing.T, what string, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d scripts, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%s: script %d is %x, want %x", what, i, got[i], want[i])
		}
	}
}

// TestDeriveScriptsMatchesExpand checks that the chunked, parallel
// derivation of a watch list gives Expand's scripts in index order: on the
// fast path across a chunk boundary, with scripts of mixed lengths (combo),
// through the general path (hardened steps), and for a key without range;
// that a cache extended below and above gives the scripts of the whole
// range; and that appending to a listed script never writes over the next.
func TestDeriveScriptsMatchesExpand(t *testing.T) {
	ctx := context.Background()
	net := &chaincfg.RegressionNetParams
	b := int64(scriptChunkIndexes)
	cases := []struct {
		desc       string
		start, end int64
	}{
		{"wpkh(" + watchTPrv + "/84h/1h/0h/0/*)", b - 150, b + 150},
		{"tr(" + watchTPrv + "/86h/1h/0h/0/*)", 0, 40},
		{"combo(" + watchTPrv + "/0/*)", b - 20, b + 20},
		{"wpkh(" + watchTPrv + "/0h/*h)", 3, 30},
		{"wsh(multi(1," + watchTPrv + "/0/*," + watchTPrv + "/1/*))", 0, 10},
		{"pkh(" + watchTPrv + ")", 0, 1},
	}
	for _, tc := range cases {
		d, err := descriptor.Parse(tc.desc, net)
		if err != nil {
			t.Fatal(err)
		}
		want := expandScripts(t, d, tc.start, tc.end)
		chunks, err := deriveScripts(ctx, d, descriptor.NewCache(), tc.start, tc.end)
		if err != nil {
			t.Fatalf("%s: %v", tc.desc, err)
		}
		sc := &scriptCache{d: d, start: tc.start, end: tc.end, chunks: chunks}
		if sc.count() != len(want) {
			t.Fatalf("%s: count %d, want %d", tc.desc, sc.count(), len(want))
		}
		sameScripts(t, tc.desc, sc.appendTo(nil), want)

		// Built in three pieces, middle first, as WatchList extends.
		if tc.end-tc.start >= 3 {
			m1, m2 := tc.start+(tc.end-tc.start)/3, tc.start+2*(tc.end-tc.start)/3
			mid, err := deriveScripts(ctx, d, descriptor.NewCache(), m1, m2)
			if err != nil {
				t.Fatal(err)
			}
			lo, err := deriveScripts(ctx, d, descriptor.NewCache(), tc.start, m1)
			if err != nil {
				t.Fatal(err)
			}
			hi, err := deriveScripts(ctx, d, descriptor.NewCache(), m2, tc.end)
			if err != nil {
				t.Fatal(err)
			}
			ext := &scriptCache{chunks: append(append(lo, mid...), hi...)}
			sameScripts(t, tc.desc+" extended", ext.appendTo(nil), want)
		}

		list := sc.appendTo(nil)
		if len(list) >= 2 {
			_ = append(list[0], 0xff, 0xff, 0xff, 0xff)
			sameScripts(t, tc.desc+" after an append", sc.appendTo(nil), want)
		}
	}
}

// TestDeriveScriptsCancel checks that a cancelled context stops the
// derivation with its error.
func TestDeriveScriptsCancel(t *testing.T) {
	d, err := descriptor.Parse("wpkh("+watchTPrv+"/0/*)", &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := deriveScripts(ctx, d, nil, 0, 3*scriptChunkIndexes); err != context.Canceled {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestScriptChunkMixedLengths checks a chunk that turns from one width to
// recorded ends part way.
func TestScriptChunkMixedLengths(t *testing.T) {
	var ch scriptChunk
	in := [][]byte{{1, 2}, {3, 4}, {5, 6, 7}, {}, {8, 9}}
	if err := ch.add(in[:2], 3); err != nil {
		t.Fatal(err)
	}
	if err := ch.add(in[2:4], 2); err != nil {
		t.Fatal(err)
	}
	if err := ch.add(in[4:], 1); err != nil {
		t.Fatal(err)
	}
	if ch.count() != len(in) {
		t.Fatalf("count %d", ch.count())
	}
	sameScripts(t, "mixed", ch.appendTo(nil), in)
}

// TestDeriveScriptsAllocations checks the shape of a large watch list's
// memory: a single-key ranged descriptor derives through the fast path
// into chunk buffers, a small fraction of the allocations an Expand per
// index and a slice per script take (about 13 an index).
func TestDeriveScriptsAllocations(t *testing.T) {
	priv, err := descriptor.Parse("wpkh("+watchTPrv+"/0/*)", &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	d := priv.Public()
	const n = 4096
	allocs := testing.AllocsPerRun(2, func() {
		if _, err := deriveScripts(context.Background(), d, descriptor.NewCache(), 0, n); err != nil {
			t.Fatal(err)
		}
	})
	if perIndex := allocs / n; perIndex > 4 {
		t.Fatalf("%.1f allocations an index, want at most 4", perIndex)
	}
}
