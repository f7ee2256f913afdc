package chain

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// This file is the BIP 37 merkle block Core's gettxoutproof writes and
// verifytxoutproof reads: a block header, the block's transaction count, the
// hashes of a partial merkle tree and its flag bits.

// maxProofTxs bounds the transaction count a proof may claim: Core's
// MAX_BLOCK_WEIGHT / MIN_TRANSACTION_WEIGHT (4,000,000 / 240).
const maxProofTxs = 4_000_000 / 240

// ErrBadProof is a merkle proof that does not decode or whose tree is
// malformed.
var ErrBadProof = errors.New("malformed merkle proof")

// MerkleProof is a decoded merkle block.
type MerkleProof struct {
	Header wire.BlockHeader
	NumTx  uint32
	Hashes []chainhash.Hash
	Bits   []bool
}

// treeWidth is the number of nodes at height h of a tree over n leaves.
func treeWidth(n uint32, h uint) uint32 {
	return uint32((uint64(n) + (1 << h) - 1) >> h)
}

// treeHeight is the height of the root of a tree over n leaves.
func treeHeight(n uint32) uint {
	h := uint(0)
	for treeWidth(n, h) > 1 {
		h++
	}
	return h
}

// hashPair is the double SHA-256 of two concatenated nodes.
func hashPair(l, r chainhash.Hash) chainhash.Hash {
	var buf [64]byte
	copy(buf[:32], l[:])
	copy(buf[32:], r[:])
	first := sha256.Sum256(buf[:])
	return chainhash.Hash(sha256.Sum256(first[:]))
}

// BuildMerkleProof returns the merkle block of a block whose transaction
// ids are txids (in block order), proving those for which match is true.
func BuildMerkleProof(hdr wire.BlockHeader, txids []chainhash.Hash, match []bool) *MerkleProof {
	p := &MerkleProof{Header: hdr, NumTx: uint32(len(txids))}
	var calc func(h uint, pos uint32) chainhash.Hash
	calc = func(h uint, pos uint32) chainhash.Hash {
		if h == 0 {
			return txids[pos]
		}
		left := calc(h-1, pos*2)
		right := left
		if pos*2+1 < treeWidth(p.NumTx, h-1) {
			right = calc(h-1, pos*2+1)
		}
		return hashPair(left, right)
	}
	var build func(h uint, pos uint32)
	build = func(h uint, pos uint32) {
		parent := false
		for i := uint64(pos) << h; i < (uint64(pos)+1)<<h && i < uint64(len(txids)); i++ {
			parent = parent || match[i]
		}
		p.Bits = append(p.Bits, parent)
		if h == 0 || !parent {
			p.Hashes = append(p.Hashes, calc(h, pos))
			return
		}
		build(h-1, pos*2)
		if pos*2+1 < treeWidth(p.NumTx, h-1) {
			build(h-1, pos*2+1)
		}
	}
	build(treeHeight(p.NumTx), 0)
	return p
}

// Serialize writes the merkle block as Core does.
func (p *MerkleProof) Serialize() []byte {
	var b bytes.Buffer
	p.Header.Serialize(&b)
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], p.NumTx)
	b.Write(n[:])
	wire.WriteVarInt(&b, 0, uint64(len(p.Hashes)))
	for _, h := range p.Hashes {
		b.Write(h[:])
	}
	flags := make([]byte, (len(p.Bits)+7)/8)
	for i, bit := range p.Bits {
		if bit {
			flags[i/8] |= 1 << (i % 8)
		}
	}
	wire.WriteVarInt(&b, 0, uint64(len(flags)))
	b.Write(flags)
	return b.Bytes()
}

// DecodeMerkleProof reads a serialized merkle block. The hash and flag
// counts are bounded by the data actually present; bytes after the merkle
// block are ignored, as Core ignores them.
func DecodeMerkleProof(raw []byte) (*MerkleProof, error) {
	r := bytes.NewReader(raw)
	p := &MerkleProof{}
	if err := p.Header.Deserialize(r); err != nil {
		return nil, ErrBadProof
	}
	if err := binary.Read(r, binary.LittleEndian, &p.NumTx); err != nil {
		return nil, ErrBadProof
	}
	nh, err := wire.ReadVarInt(r, 0)
	if err != nil || nh > uint64(r.Len())/32 {
		return nil, ErrBadProof
	}
	p.Hashes = make([]chainhash.Hash, nh)
	for i := range p.Hashes {
		r.Read(p.Hashes[i][:])
	}
	nf, err := wire.ReadVarInt(r, 0)
	if err != nil || nf > uint64(r.Len()) {
		return nil, ErrBadProof
	}
	flags := make([]byte, nf)
	r.Read(flags)
	p.Bits = make([]bool, 8*len(flags))
	for i := range p.Bits {
		p.Bits[i] = flags[i/8]&(1<<(i%8)) != 0
	}
	return p, nil
}

// Extract walks the partial tree (Core's ExtractMatches) and returns its
// merkle root and the matched transaction ids; ErrBadProof when the tree
// is malformed.
func (p *MerkleProof) Extract() (chainhash.Hash, []chainhash.Hash, error) {
	root, matches, _, err := p.ExtractIndexes()
	return root, matches, err
}

// ExtractIndexes is Extract that also returns the position in the block
// of each matched transaction (Core's vnIndex).
func (p *MerkleProof) ExtractIndexes() (chainhash.Hash, []chainhash.Hash, []uint32, error) {
	if p.NumTx == 0 || p.NumTx > maxProofTxs || len(p.Hashes) > int(p.NumTx) ||
		len(p.Bits) < len(p.Hashes) {
		return chainhash.Hash{}, nil, nil, ErrBadProof
	}
	var matches []chainhash.Hash
	var indexes []uint32
	bits, hashes := 0, 0
	bad := false
	var walk func(h uint, pos uint32) chainhash.Hash
	walk = func(h uint, pos uint32) chainhash.Hash {
		if bits >= len(p.Bits) {
			bad = true
			return chainhash.Hash{}
		}
		parent := p.Bits[bits]
		bits++
		if h == 0 || !parent {
			if hashes >= len(p.Hashes) {
				bad = true
				return chainhash.Hash{}
			}
			hash := p.Hashes[hashes]
			hashes++
			if h == 0 && parent {
				matches = append(matches, hash)
				indexes = append(indexes, pos)
			}
			return hash
		}
		left := walk(h-1, pos*2)
		right := left
		if pos*2+1 < treeWidth(p.NumTx, h-1) {
			right = walk(h-1, pos*2+1)
			if right == left {
				// Two equal siblings make different trees hash alike
				// (CVE-2012-2459).
				bad = true
			}
		}
		return hashPair(left, right)
	}
	root := walk(treeHeight(p.NumTx), 0)
	if bad || (bits+7)/8 != (len(p.Bits)+7)/8 || hashes != len(p.Hashes) {
		return chainhash.Hash{}, nil, nil, ErrBadProof
	}
	return root, matches, indexes, nil
}
