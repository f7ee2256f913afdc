package chain

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// testIDs returns n distinct transaction ids.
func testIDs(n int) []chainhash.Hash {
	ids := make([]chainhash.Hash, n)
	for i := range ids {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(i))
		ids[i] = chainhash.Hash(sha256.Sum256(b[:]))
	}
	return ids
}

// TestMerkleProofRoundTrip builds proofs for trees of every shape up to 70
// leaves with several match patterns, and checks that reading them back
// yields the block's merkle root and exactly the matched ids, in block
// order.
func TestMerkleProofRoundTrip(t *testing.T) {
	for n := 1; n <= 70; n++ {
		ids := testIDs(n)
		root := merkleRoot(ids)
		patterns := [][]int{{0}, {n - 1}, {n / 2}, {0, n - 1}}
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		patterns = append(patterns, all, nil)
		for _, pat := range patterns {
			match := make([]bool, n)
			var want []chainhash.Hash
			for _, i := range pat {
				if !match[i] {
					match[i] = true
				}
			}
			for i, m := range match {
				if m {
					want = append(want, ids[i])
				}
			}
			hdr := wire.BlockHeader{MerkleRoot: root}
			raw := BuildMerkleProof(hdr, ids, match).Serialize()
			p, err := DecodeMerkleProof(raw)
			if err != nil {
				t.Fatalf("n=%d %v: decode: %v", n, pat, err)
			}
			got, matches, err := p.Extract()
			if err != nil {
				t.Fatalf("n=%d %v: extract: %v", n, pat, err)
			}
			if got != root || p.Header.MerkleRoot != root {
				t.Fatalf("n=%d %v: root %s, want %s", n, pat, got, root)
			}
			if len(matches) != len(want) {
				t.Fatalf("n=%d %v: %d matches, want %d", n, pat, len(matches), len(want))
			}
			for i := range want {
				if matches[i] != want[i] {
					t.Fatalf("n=%d %v: match %d differs", n, pat, i)
				}
			}
		}
	}
}

// TestMerkleProofMalformed checks that truncated, padded and tampered
// proofs are refused, and that a proof whose count of transactions is
// changed no longer yields the root.
func TestMerkleProofMalformed(t *testing.T) {
	ids := testIDs(7)
	match := []bool{false, true, false, false, false, false, true}
	raw := BuildMerkleProof(wire.BlockHeader{MerkleRoot: merkleRoot(ids)}, ids, match).Serialize()
	for cut := 0; cut < len(raw); cut++ {
		if _, err := DecodeMerkleProof(raw[:cut]); err == nil {
			t.Fatalf("proof cut to %d bytes decoded", cut)
		}
	}
	if p, err := DecodeMerkleProof(append(append([]byte(nil), raw...), 0)); err != nil || !bytes.Equal(p.Serialize(), raw) {
		t.Fatalf("proof with a trailing byte: %v", err)
	}
	p, _ := DecodeMerkleProof(raw)
	p.NumTx = 0
	if _, _, err := p.Extract(); err == nil {
		t.Fatal("proof of zero transactions extracted")
	}
	p, _ = DecodeMerkleProof(raw)
	p.NumTx = 8
	if root, _, err := p.Extract(); err == nil && root == merkleRoot(ids) {
		t.Fatal("proof with a wrong transaction count gave the root")
	}
	// Duplicate siblings (CVE-2012-2459): two leaves with one hash.
	dup := []chainhash.Hash{ids[0], ids[0]}
	q := BuildMerkleProof(wire.BlockHeader{}, dup, []bool{true, true})
	if _, _, err := q.Extract(); err == nil {
		t.Fatal("proof with equal siblings extracted")
	}
}

// FuzzMerkleProof decodes arbitrary bytes as a merkle block: no panic, and
// a proof that decodes serializes back to the bytes it was read from.
func FuzzMerkleProof(f *testing.F) {
	ids := testIDs(5)
	f.Add(BuildMerkleProof(wire.BlockHeader{}, ids, []bool{false, false, true, false, true}).Serialize())
	f.Add(BuildMerkleProof(wire.BlockHeader{}, ids[:1], []bool{true}).Serialize())
	f.Add(make([]byte, 84))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := DecodeMerkleProof(raw)
		if err != nil {
			return
		}
		p.Extract()
		if !bytes.HasPrefix(raw, p.Serialize()) {
			t.Fatalf("round trip differs")
		}
	})
}

// TestMerkleProofIndexes checks the block positions ExtractIndexes gives
// for every choice of matched transactions in blocks of 1 to 9.
func TestMerkleProofIndexes(t *testing.T) {
	for n := 1; n <= 9; n++ {
		txids := make([]chainhash.Hash, n)
		for i := range txids {
			txids[i][0], txids[i][1] = byte(n), byte(i+1)
		}
		for mask := 0; mask < 1<<n; mask++ {
			match := make([]bool, n)
			var want []uint32
			for i := range match {
				if mask&(1<<i) != 0 {
					match[i] = true
					want = append(want, uint32(i))
				}
			}
			p := BuildMerkleProof(wire.BlockHeader{}, txids, match)
			_, ids, idx, err := p.ExtractIndexes()
			if err != nil || len(idx) != len(want) || len(ids) != len(want) {
				t.Fatalf("n %d mask %b: %v %v %v", n, mask, idx, ids, err)
			}
			for k := range want {
				if idx[k] != want[k] || ids[k] != txids[want[k]] {
					t.Fatalf("n %d mask %b: indexes %v, want %v", n, mask, idx, want)
				}
			}
		}
	}
}
