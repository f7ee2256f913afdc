package chain

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

const (
	// MaxBlockBytes bounds a serialized block: the consensus limit on a
	// block's weight makes any valid block smaller.
	MaxBlockBytes = wire.MaxBlockPayload

	// MaxFilterBytes bounds a serialized basic filter. A filter holds at
	// most one element per input and output of a block, each about 20
	// bits, far below this bound.
	MaxFilterBytes = 1 << 22

	// headerBytes is the size of a serialized block header.
	headerBytes = 80
)

// DecodeBlock decodes a serialized block, checks that it is exactly one
// block within MaxBlockBytes, that it hashes to want and that its merkle root
// commits to its transactions.
func DecodeBlock(raw []byte, want chainhash.Hash) (*Block, error) {
	if len(raw) > MaxBlockBytes {
		return nil, chainErr(ErrBadReply, fmt.Sprintf(
			"block %s: %d bytes exceed the limit of %d", want,
			len(raw), MaxBlockBytes), nil)
	}
	if len(raw) < headerBytes {
		return nil, chainErr(ErrBadReply, fmt.Sprintf(
			"block %s: %d bytes, shorter than a header", want,
			len(raw)), nil)
	}
	var hdr wire.BlockHeader
	if err := hdr.Deserialize(bytes.NewReader(raw[:headerBytes])); err != nil {
		return nil, chainErr(ErrBadReply, "block "+want.String(), err)
	}
	if got := hdr.BlockHash(); got != want {
		return nil, chainErr(ErrBadReply, fmt.Sprintf(
			"asked for block %s, got block %s", want, got), nil)
	}
	msg := new(wire.MsgBlock)
	r := bytes.NewReader(raw)
	if err := msg.Deserialize(r); err != nil {
		return nil, chainErr(ErrBadReply, "block "+want.String(), err)
	}
	if r.Len() != 0 {
		return nil, chainErr(ErrBadReply, fmt.Sprintf(
			"block %s: %d bytes after the block", want, r.Len()), nil)
	}
	if len(msg.Transactions) == 0 {
		return nil, chainErr(ErrBadReply, "block "+want.String()+
			": no transactions", nil)
	}
	ids := make([]chainhash.Hash, len(msg.Transactions))
	for i, tx := range msg.Transactions {
		ids[i] = tx.TxHash()
	}
	if root := merkleRoot(ids); root != msg.Header.MerkleRoot {
		return nil, chainErr(ErrBadReply, fmt.Sprintf(
			"block %s: merkle root %s does not match its transactions (%s)",
			want, msg.Header.MerkleRoot, root), nil)
	}
	return &Block{MsgBlock: msg, Hash: want, TxIDs: ids}, nil
}

// merkleRoot computes a block's merkle root from its transaction ids, the
// last id of an odd level paired with itself.
func merkleRoot(ids []chainhash.Hash) chainhash.Hash {
	level := append([]chainhash.Hash(nil), ids...)
	var buf [64]byte
	for len(level) > 1 {
		if len(level)%2 == 1 {
			level = append(level, level[len(level)-1])
		}
		next := level[:0]
		for i := 0; i < len(level); i += 2 {
			copy(buf[:32], level[i][:])
			copy(buf[32:], level[i+1][:])
			first := sha256.Sum256(buf[:])
			next = append(next, chainhash.Hash(sha256.Sum256(first[:])))
		}
		level = next
	}
	return level[0]
}

// DecodeHeader decodes a serialized 80-byte header and checks that it hashes
// to want.
func DecodeHeader(raw []byte, want chainhash.Hash) (wire.BlockHeader, error) {
	var hdr wire.BlockHeader
	if len(raw) != headerBytes {
		return hdr, chainErr(ErrBadReply, fmt.Sprintf(
			"header %s: %d bytes, want %d", want, len(raw),
			headerBytes), nil)
	}
	if err := hdr.Deserialize(bytes.NewReader(raw)); err != nil {
		return hdr, chainErr(ErrBadReply, "header "+want.String(), err)
	}
	if got := hdr.BlockHash(); got != want {
		return hdr, chainErr(ErrBadReply, fmt.Sprintf(
			"asked for header %s, got header %s", want, got), nil)
	}
	return hdr, nil
}

// Filter is a block's BIP158 basic filter, keyed by its block hash.
type Filter struct {
	// BlockHash is the block the filter describes; its first 16 bytes
	// are the filter's SipHash key.
	BlockHash chainhash.Hash

	n   uint32
	set []uint64 // the decoded elements, ascending
	nm  uint64   // n·M, the range of the elements
	sip sipKey
	raw []byte

	// present is a bitmap over the elements' range, built at the first
	// match of a long watch list (presence.go).
	presentOnce sync.Once
	present     presence
}

// DecodeFilter decodes a serialized basic filter (the element count as a
// compact size, then the Golomb-coded set) of block hash. The whole set is
// decoded: a filter whose set ends early is rejected.
func DecodeFilter(raw []byte, hash chainhash.Hash) (*Filter, error) {
	return decodeFilter(append([]byte(nil), raw...), hash)
}

// decodeFilter is DecodeFilter keeping raw, which the caller gives up.
func decodeFilter(raw []byte, hash chainhash.Hash) (*Filter, error) {
	if len(raw) > MaxFilterBytes {
		return nil, chainErr(ErrBadReply, fmt.Sprintf(
			"filter of %s: %d bytes exceed the limit of %d", hash,
			len(raw), MaxFilterBytes), nil)
	}
	r := bytes.NewReader(raw)
	n, err := wire.ReadVarInt(r, 0)
	if err != nil {
		return nil, chainErr(ErrBadReply, "filter of "+hash.String(), err)
	}
	// Each element takes at least P+1 bits of the set.
	maxN := uint64(r.Len()) * 8 / (filterP + 1)
	if n > maxN {
		return nil, chainErr(ErrBadReply, fmt.Sprintf(
			"filter of %s: %d elements cannot fit in %d bytes", hash,
			n, r.Len()), nil)
	}
	set, ok := decodeSet(raw[len(raw)-r.Len():], n)
	if !ok {
		return nil, chainErr(ErrBadReply, fmt.Sprintf(
			"filter of %s: the set ends before its %d elements",
			hash, n), nil)
	}
	return &Filter{BlockHash: hash, n: uint32(n), set: set,
		nm: n * filterM,
		sip: newSipKey(binary.LittleEndian.Uint64(hash[0:8]),
			binary.LittleEndian.Uint64(hash[8:16])),
		raw: raw}, nil
}

// N returns the number of elements in the filter.
func (f *Filter) N() uint32 { return f.n }

// Bytes returns the serialized filter as the backend sent it.
func (f *Filter) Bytes() []byte { return f.raw }

// Match reports whether the filter may hold script (false positives at a
// rate of 1/784931, no false negatives). The error is always nil: the set
// was checked when decoded.
func (f *Filter) Match(script []byte) (bool, error) {
	if len(f.set) == 0 || len(script) == 0 {
		return false, nil
	}
	return contains(f.set, f.value(script)), nil
}

// MatchAny reports whether the filter may hold any of scripts. The error
// is always nil: the set was checked when decoded.
func (f *Filter) MatchAny(scripts [][]byte) (bool, error) {
	if len(f.set) == 0 {
		return false, nil
	}
	for _, s := range scripts {
		if contains(f.set, f.value(s)) {
			return true, nil
		}
	}
	return false, nil
}

// plainString returns the contents of raw when raw is a JSON string
// without escapes (the form hex and hashes take), false otherwise.
func plainString(raw json.RawMessage) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 || bytes.IndexByte(body, '"') >= 0 {
		return nil, false
	}
	return body, true
}

// decodeHexResult reads a JSON string of hex digits of at most maxBytes
// decoded bytes.
func decodeHexResult(raw json.RawMessage, maxBytes int) ([]byte, error) {
	if len(raw) > 2*maxBytes+2 {
		return nil, fmt.Errorf("hex longer than %d bytes", maxBytes)
	}
	if body, ok := plainString(raw); ok {
		// Straight from the reply bytes: no intermediate string.
		out := make([]byte, hex.DecodedLen(len(body)))
		if len(body)%2 == 1 {
			return nil, hex.ErrLength
		}
		if _, err := hex.Decode(out, body); err != nil {
			return nil, err
		}
		return out, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return hex.DecodeString(s)
}

// hashResult reads a JSON string holding a hash in RPC (byte-reversed) hex.
func hashResult(raw json.RawMessage) (chainhash.Hash, error) {
	var h chainhash.Hash
	if body, ok := plainString(raw); ok && len(body) == 2*chainhash.HashSize {
		var le [chainhash.HashSize]byte
		if _, err := hex.Decode(le[:], body); err == nil {
			for i := range le {
				h[i] = le[chainhash.HashSize-1-i]
			}
			return h, nil
		}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return chainhash.Hash{}, err
	}
	if len(s) != 2*chainhash.HashSize {
		return chainhash.Hash{}, fmt.Errorf("hash %q: wrong length", s)
	}
	hp, err := chainhash.NewHashFromStr(s)
	if err != nil {
		return chainhash.Hash{}, err
	}
	return *hp, nil
}

// satoshis converts an amount in BTC as JSON prints it (1.5, 0.00001,
// 1e-06) to satoshis exactly.
func satoshis(n json.Number) (int64, error) {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return 0, fmt.Errorf("amount %q is not a number", n)
	}
	r.Mul(r, big.NewRat(1e8, 1))
	if !r.IsInt() {
		return 0, fmt.Errorf("amount %q has more than 8 decimals", n)
	}
	v := r.Num()
	if !v.IsInt64() || v.Sign() < 0 || v.Int64() > 21e14 {
		return 0, errors.New("amount " + string(n) + " out of range")
	}
	return v.Int64(), nil
}
