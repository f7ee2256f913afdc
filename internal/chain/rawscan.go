package chain

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// RawBlockFetcher is an optional Backend interface: a backend that
// implements it hands out blocks as the node serialized them, with only
// their header checked against the hash asked for, so that a scan can look
// through a block's outputs and inputs without decoding its transactions or
// hashing them (ScanBlock). A block that turns out to matter is then fetched
// or decoded in full (DecodeBlock), which checks its merkle root.
type RawBlockFetcher interface {
	RawBlocks(ctx context.Context, hashes []chainhash.Hash) ([][]byte, error)
}

// RawBlocks returns the serialized blocks of hashes, each within
// MaxBlockBytes and with a header that hashes to the hash asked for; the
// transactions are not checked (see RawBlockFetcher).
func (c *Client) RawBlocks(ctx context.Context, hashes []chainhash.Hash) ([][]byte, error) {
	calls := make([]*call, len(hashes))
	for i, h := range hashes {
		calls[i] = &call{Method: "getblock", Params: []any{h.String(), 0}}
	}
	if err := c.run(ctx, calls, blocksPerBatch); err != nil {
		return nil, err
	}
	out := make([][]byte, len(hashes))
	for i, cl := range calls {
		subject := hashes[i].String()
		if cl.Err != nil {
			return nil, c.callErr(cl.Method, subject, cl.Err)
		}
		raw, err := decodeHexResult(cl.Result, MaxBlockBytes)
		if err != nil {
			return nil, c.resultErr(cl.Method, subject, cl.Result, err)
		}
		cl.Result = nil
		if err := CheckRawHeader(raw, hashes[i]); err != nil {
			return nil, err
		}
		out[i] = raw
	}
	return out, nil
}

// CheckRawHeader checks that raw is within MaxBlockBytes and starts with a
// header that hashes to want.
func CheckRawHeader(raw []byte, want chainhash.Hash) error {
	if len(raw) > MaxBlockBytes {
		return chainErr(ErrBadReply, fmt.Sprintf(
			"block %s: %d bytes exceed the limit of %d", want,
			len(raw), MaxBlockBytes), nil)
	}
	if len(raw) < headerBytes {
		return chainErr(ErrBadReply, fmt.Sprintf(
			"block %s: %d bytes, shorter than a header", want,
			len(raw)), nil)
	}
	first := sha256.Sum256(raw[:headerBytes])
	if got := chainhash.Hash(sha256.Sum256(first[:])); got != want {
		return chainErr(ErrBadReply, fmt.Sprintf(
			"asked for block %s, got block %s", want, got), nil)
	}
	return nil
}

// errRawBlock is ScanBlock's failure: the bytes are not a block.
func errRawBlock(what string) error {
	return chainErr(ErrBadReply, "block does not parse: "+what, nil)
}

// rawReader reads a serialized block from the front; every read checks
// the bytes left, and a failed read leaves pos past the end, so that one
// check after a run of reads tells whether they all fitted.
type rawReader struct {
	b   []byte
	pos int
}

// bad tells whether a read failed.
func (r *rawReader) bad() bool { return r.pos > len(r.b) }

// skip passes n bytes.
func (r *rawReader) skip(n uint64) {
	if n > uint64(len(r.b)-min(r.pos, len(r.b))) {
		r.pos = len(r.b) + 1
		return
	}
	r.pos += int(n)
}

// take returns the next n bytes, nil when there are fewer.
func (r *rawReader) take(n uint64) []byte {
	start := r.pos
	r.skip(n)
	if r.bad() {
		return nil
	}
	return r.b[start:r.pos:r.pos]
}

// varInt reads a compact size, refusing the non-canonical forms as wire
// does.
func (r *rawReader) varInt() uint64 {
	if r.pos >= len(r.b) {
		r.pos = len(r.b) + 1
		return 0
	}
	c := r.b[r.pos]
	if c < 0xfd {
		r.pos++
		return uint64(c)
	}
	return r.varIntLong(c)
}

// varIntLong reads the compact sizes of more than one byte.
func (r *rawReader) varIntLong(c byte) uint64 {
	r.pos++
	var v, least uint64
	switch c {
	case 0xfd:
		q := r.take(2)
		if q == nil {
			return 0
		}
		v, least = uint64(binary.LittleEndian.Uint16(q)), 0xfd
	case 0xfe:
		q := r.take(4)
		if q == nil {
			return 0
		}
		v, least = uint64(binary.LittleEndian.Uint32(q)), 0x10000
	default:
		q := r.take(8)
		if q == nil {
			return 0
		}
		v, least = binary.LittleEndian.Uint64(q), 0x100000000
	}
	if v < least {
		r.pos = len(r.b) + 1
		return 0
	}
	return v
}

// count reads a compact size that counts items of at least minSize bytes
// each, refusing counts the bytes left cannot hold.
func (r *rawReader) count(minSize uint64) uint64 {
	n := r.varInt()
	if r.bad() || n > uint64(len(r.b)-r.pos)/minSize {
		r.pos = len(r.b) + 1
		return 0
	}
	return n
}

// ScanBlock walks the serialized block raw without building its
// transactions: it calls spends with the previous outpoint of each input
// (the coinbase's null outpoint included) and pays with the script of each
// output, in block order, and stops at the first call that returns true,
// reporting true. It decodes nothing it does not need: transaction ids are
// not computed and witnesses are skipped. Every length is checked against
// the bytes left, so any input is safe; a block that does not parse fails
// with ErrBadReply. It checks neither the header's hash nor the merkle
// root: a block that matters is decoded in full with DecodeBlock.
func ScanBlock(raw []byte, spends func(op *wire.OutPoint) bool, pays func(script []byte) bool) (bool, error) {
	if len(raw) > MaxBlockBytes {
		return false, errRawBlock("too large")
	}
	r := rawReader{b: raw}
	r.skip(headerBytes)
	// A transaction takes at least 10 bytes (version, two counts,
	// lock time).
	ntx := r.count(10)
	if r.bad() {
		return false, errRawBlock("transaction count")
	}
	if ntx == 0 {
		return false, errRawBlock("no transactions")
	}
	var op wire.OutPoint
	for t := uint64(0); t < ntx; t++ {
		r.skip(4) // version
		// An input takes at least 41 bytes, an output 9.
		nin := r.count(41)
		witness := false
		if !r.bad() && nin == 0 {
			// The segwit marker, then its flag, which wire takes
			// only as 0x01.
			flag := r.take(1)
			if flag == nil || flag[0] != 0x01 {
				return false, errRawBlock("witness flag")
			}
			witness = true
			nin = r.count(41)
		}
		if r.bad() {
			return false, errRawBlock("input count")
		}
		for i := uint64(0); i < nin; i++ {
			p := r.take(36)
			if p == nil {
				return false, errRawBlock("input")
			}
			r.skip(r.varInt()) // signature script
			r.skip(4)          // sequence
			if r.bad() {
				return false, errRawBlock("input")
			}
			if spends != nil {
				copy(op.Hash[:], p[:32])
				op.Index = binary.LittleEndian.Uint32(p[32:])
				if spends(&op) {
					return true, nil
				}
			}
		}
		nout := r.count(9)
		if r.bad() {
			return false, errRawBlock("output count")
		}
		for i := uint64(0); i < nout; i++ {
			r.skip(8) // value
			script := r.take(r.varInt())
			if script == nil {
				return false, errRawBlock("output")
			}
			if pays != nil && pays(script) {
				return true, nil
			}
		}
		if witness {
			for i := uint64(0); i < nin && !r.bad(); i++ {
				items := r.count(1)
				for j := uint64(0); j < items && !r.bad(); j++ {
					r.skip(r.varInt())
				}
			}
			if r.bad() {
				return false, errRawBlock("witness")
			}
		}
		r.skip(4) // lock time
		if r.bad() {
			return false, errRawBlock("lock time")
		}
	}
	if r.pos != len(r.b) {
		return false, errRawBlock("bytes after the last transaction")
	}
	return false, nil
}
