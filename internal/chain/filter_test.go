package chain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/btcutil/v2/gcs/builder"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/descwallet/descwallet/internal/testvec"
)

// filterVector is one row of bip158_filters.json.
type filterVector struct {
	Height     int64
	Hash       chainhash.Hash
	Block      []byte
	PrevOuts   [][]byte
	PrevHeader chainhash.Hash
	Filter     []byte
	Header     chainhash.Hash
	Note       string
}

func loadFilterVectors(t testing.TB) []filterVector {
	var rows []json.RawMessage
	testvec.Load(t, "bip158_filters.json", &rows)
	var out []filterVector
	for _, row := range rows[1:] {
		var f []json.RawMessage
		if err := json.Unmarshal(row, &f); err != nil || len(f) < 7 {
			t.Fatalf("row %s: %v", row, err)
		}
		var v filterVector
		var s string
		var prev []string
		json.Unmarshal(f[0], &v.Height)
		hexField := func(i int) []byte {
			json.Unmarshal(f[i], &s)
			b, err := hex.DecodeString(s)
			if err != nil {
				t.Fatalf("row %d field %d: %v", v.Height, i, err)
			}
			return b
		}
		hashField := func(i int) chainhash.Hash {
			json.Unmarshal(f[i], &s)
			h, err := chainhash.NewHashFromStr(s)
			if err != nil {
				t.Fatal(err)
			}
			return *h
		}
		v.Hash = hashField(1)
		v.Block = hexField(2)
		json.Unmarshal(f[3], &prev)
		for _, p := range prev {
			b, _ := hex.DecodeString(p)
			v.PrevOuts = append(v.PrevOuts, b)
		}
		v.PrevHeader = hashField(4)
		v.Filter = hexField(5)
		v.Header = hashField(6)
		if len(f) > 7 {
			json.Unmarshal(f[7], &v.Note)
		}
		out = append(out, v)
	}
	return out
}

// TestBIP158Vectors decodes each vector's block and filter and checks that
// the filter matches every spent and created script BIP158 puts in it (all
// but empty and OP_RETURN ones), that the filter header chains, and that
// scripts not in the block are not matched.
func TestBIP158Vectors(t *testing.T) {
	t.Parallel()
	vs := loadFilterVectors(t)
	if len(vs) != 10 {
		t.Fatalf("%d vectors, want 10", len(vs))
	}
	for _, v := range vs {
		blk, err := DecodeBlock(v.Block, v.Hash)
		if err != nil {
			t.Errorf("%d: block: %v", v.Height, err)
			continue
		}
		f, err := DecodeFilter(v.Filter, v.Hash)
		if err != nil {
			t.Errorf("%d: filter: %v", v.Height, err)
			continue
		}
		if got := filterHeader(v.Filter, v.PrevHeader); got != v.Header {
			t.Errorf("%d: filter header %s, want %s", v.Height, got,
				v.Header)
		}
		built, err := builder.BuildBasicFilter(blk.MsgBlock, v.PrevOuts)
		if err != nil {
			t.Fatal(err)
		}
		nb, _ := built.NBytes()
		if !bytes.Equal(nb, v.Filter) {
			t.Errorf("%d: rebuilt filter %x, want %x", v.Height, nb,
				v.Filter)
		}
		var in [][]byte
		for _, p := range v.PrevOuts {
			if len(p) > 0 {
				in = append(in, p)
			}
		}
		for _, tx := range blk.Transactions {
			for _, out := range tx.TxOut {
				s := out.PkScript
				if len(s) > 0 && s[0] != txscript.OP_RETURN {
					in = append(in, s)
				}
			}
		}
		for _, s := range in {
			ok, err := f.Match(s)
			if err != nil || !ok {
				t.Errorf("%d (%s): filter misses %x (%v)", v.Height,
					v.Note, s, err)
			}
		}
		if len(in) > 0 {
			if ok, err := f.MatchAny(in); err != nil || !ok {
				t.Errorf("%d: MatchAny misses (%v)", v.Height, err)
			}
		}
		var absent [][]byte
		for i := 0; i < 50; i++ {
			h := sha256.Sum256([]byte{byte(i), byte(v.Height)})
			absent = append(absent, append([]byte{0x00, 0x20}, h[:]...))
		}
		if ok, err := f.MatchAny(absent); err != nil || ok {
			t.Errorf("%d: filter matches scripts not in the block (%v)",
				v.Height, err)
		}
	}
}

// TestDecodeRejects checks the bounds of the decoders.
func TestDecodeRejects(t *testing.T) {
	t.Parallel()
	vs := loadFilterVectors(t)
	v := vs[len(vs)-2]
	var other chainhash.Hash
	tests := []struct {
		name string
		run  func() error
	}{
		{"block under another hash", func() error {
			_, err := DecodeBlock(v.Block, other)
			return err
		}},
		{"block with a trailing byte", func() error {
			_, err := DecodeBlock(append(append([]byte{}, v.Block...), 0), v.Hash)
			return err
		}},
		{"truncated block", func() error {
			_, err := DecodeBlock(v.Block[:len(v.Block)-1], v.Hash)
			return err
		}},
		{"oversized block", func() error {
			_, err := DecodeBlock(make([]byte, MaxBlockBytes+1), v.Hash)
			return err
		}},
		{"block with a changed transaction", func() error {
			var msg wire.MsgBlock
			msg.Deserialize(bytes.NewReader(v.Block))
			msg.Transactions[0].LockTime ^= 1
			var buf bytes.Buffer
			msg.Serialize(&buf)
			_, err := DecodeBlock(buf.Bytes(), v.Hash)
			return err
		}},
		{"header of 79 bytes", func() error {
			_, err := DecodeHeader(v.Block[:79], v.Hash)
			return err
		}},
		{"filter claiming too many elements", func() error {
			_, err := DecodeFilter([]byte{0xfe, 0xff, 0xff, 0xff, 0x7f, 1, 2}, v.Hash)
			return err
		}},
		{"empty filter bytes", func() error {
			_, err := DecodeFilter(nil, v.Hash)
			return err
		}},
	}
	for _, tc := range tests {
		if err := tc.run(); err == nil {
			t.Errorf("%s: accepted", tc.name)
		} else if _, ok := err.(*Error); !ok {
			t.Errorf("%s: %T, want *Error", tc.name, err)
		}
	}
}

// FuzzDecodeBlock feeds arbitrary bytes to the block decoder: no panic, and
// whatever decodes hashes to the hash it was checked against.
func FuzzDecodeBlock(f *testing.F) {
	for _, v := range loadFilterVectors(f) {
		f.Add(v.Block)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) < 80 {
			return
		}
		var hdr wire.BlockHeader
		hdr.Deserialize(bytes.NewReader(raw[:80]))
		h := hdr.BlockHash()
		blk, err := DecodeBlock(raw, h)
		if err == nil && blk.BlockHash() != h {
			t.Fatal("decoded block under another hash")
		}
	})
}

// FuzzDecodeFilter feeds arbitrary bytes to the filter decoder and matcher:
// no panic.
func FuzzDecodeFilter(f *testing.F) {
	for _, v := range loadFilterVectors(f) {
		f.Add(v.Filter, []byte{0x51})
	}
	f.Fuzz(func(t *testing.T, raw, script []byte) {
		var h chainhash.Hash
		flt, err := DecodeFilter(raw, h)
		if err != nil {
			return
		}
		flt.Match(script)
		flt.MatchAny([][]byte{script, {0x00}})
	})
}
