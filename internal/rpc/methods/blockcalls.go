package methods

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
)

// The block node calls: getblockhash, getbestblockhash, getblockheader,
// getblock, getchaintips, getblockfilter, getblockstats.

var errBlockNotFound = rpc.NewError(rpc.CodeInvalidAddressOrKey, "Block not found")

// blockErr maps a backend failure of a block lookup: an unknown block is
// Core's -5 "Block not found".
func blockErr(err error) error {
	if errors.Is(err, chain.ErrNotFound) {
		return errBlockNotFound
	}
	return backendError(err)
}

// blockHashArg reads argument i as a block hash (Core's ParseHashV).
func blockHashArg(req *rpc.Request, i int, name string) (chainhash.Hash, error) {
	s, err := req.String(i)
	if err != nil {
		return chainhash.Hash{}, err
	}
	return parseHash(s, name)
}

// blockHeaderJSON is Core's blockheaderToJSON, in its field order.
type blockHeaderJSON struct {
	Hash              string    `json:"hash"`
	Confirmations     int64     `json:"confirmations"`
	Height            int32     `json:"height"`
	Version           int32     `json:"version"`
	VersionHex        string    `json:"versionHex"`
	MerkleRoot        string    `json:"merkleroot"`
	Time              int64     `json:"time"`
	MedianTime        int64     `json:"mediantime"`
	Nonce             uint32    `json:"nonce"`
	Bits              string    `json:"bits"`
	Target            string    `json:"target"`
	Difficulty        coreFloat `json:"difficulty"`
	ChainWork         string    `json:"chainwork"`
	NTx               int       `json:"nTx"`
	PreviousBlockHash string    `json:"previousblockhash,omitempty"`
	NextBlockHash     string    `json:"nextblockhash,omitempty"`
}

// blockJSON is Core's blockToJSON: the header fields, the sizes and the
// transactions (ids at verbosity 1, objects above).
type blockJSON struct {
	blockHeaderJSON
	StrippedSize int `json:"strippedsize"`
	Size         int `json:"size"`
	Weight       int `json:"weight"`
	Tx           any `json:"tx"`
}

// coreFloat is a floating-point number written as Core's UniValue writes
// a double: 16 significant digits ("%.16g"), not Go's shortest form.
type coreFloat float64

// MarshalJSON implements json.Marshaler.
func (f coreFloat) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(f), 'g', 16, 64), nil
}

// targetHex is the 256-bit target of compact bits as Core's GetHex shows
// it (64 hex digits, most significant first).
func targetHex(bits uint32) string {
	mant := uint64(bits & 0x007fffff)
	exp := int(bits >> 24)
	var t [32]byte
	if bits&0x00800000 == 0 {
		for i := 0; i < 3; i++ {
			// Byte i of the mantissa (least significant first) lands at
			// little-endian position exp-3+i.
			pos := exp - 3 + i
			if pos >= 0 && pos < 32 {
				t[31-pos] = byte(mant >> (8 * i))
			}
		}
	}
	return hex.EncodeToString(t[:])
}

// medianTime is Core's GetMedianTimePast of block hdr at height: the
// median of its time and its ten predecessors'.
func medianTime(ctx context.Context, b chain.Backend, hdr wire.BlockHeader, height int32, onBest bool) (int64, error) {
	times := []int64{hdr.Timestamp.Unix()}
	if height > 0 && onBest {
		var heights []int32
		for h := max(0, height-10); h < height; h++ {
			heights = append(heights, h)
		}
		hashes, err := b.BlockHashes(ctx, heights)
		if err != nil {
			return 0, err
		}
		hdrs, err := b.Headers(ctx, hashes)
		if err != nil {
			return 0, err
		}
		for _, h := range hdrs {
			times = append(times, h.Timestamp.Unix())
		}
	} else {
		prev := hdr.PrevBlock
		for i := int32(0); i < 10 && i < height; i++ {
			h, err := b.Headers(ctx, []chainhash.Hash{prev})
			if err != nil {
				return 0, err
			}
			times = append(times, h[0].Timestamp.Unix())
			prev = h[0].PrevBlock
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return times[len(times)/2], nil
}

// headerJSON describes block blk, fetched from b, as Core's
// blockheaderToJSON does.
func headerJSON(ctx context.Context, b chain.Backend, blk *chain.Block) (blockHeaderJSON, error) {
	place, err := b.BlockPlace(ctx, blk.Hash)
	if err != nil {
		return blockHeaderJSON{}, blockErr(err)
	}
	hdr := blk.Header
	onBest := place.Confirmations >= 0
	mtp, err := medianTime(ctx, b, hdr, place.Height, onBest)
	if err != nil {
		return blockHeaderJSON{}, blockErr(err)
	}
	work, err := b.ChainWork(ctx, blk.Hash, place.Height)
	if err != nil {
		return blockHeaderJSON{}, blockErr(err)
	}
	j := blockHeaderJSON{
		Hash: blk.Hash.String(), Confirmations: place.Confirmations, Height: place.Height,
		Version: hdr.Version, VersionHex: fmt.Sprintf("%08x", uint32(hdr.Version)),
		MerkleRoot: hdr.MerkleRoot.String(), Time: hdr.Timestamp.Unix(), MedianTime: mtp,
		Nonce: hdr.Nonce, Bits: fmt.Sprintf("%08x", hdr.Bits), Target: targetHex(hdr.Bits),
		Difficulty: coreFloat(difficulty(hdr.Bits)), ChainWork: fmt.Sprintf("%064x", work), NTx: len(blk.Transactions),
	}
	if place.Height > 0 {
		j.PreviousBlockHash = hdr.PrevBlock.String()
	}
	if place.Next != nil {
		j.NextBlockHash = place.Next.String()
	}
	return j, nil
}

// fetchBlock returns block hash from b, "Block not found" when b does not
// know it.
func fetchBlock(ctx context.Context, b chain.Backend, hash chainhash.Hash) (*chain.Block, error) {
	blks, err := b.Blocks(ctx, []chainhash.Hash{hash})
	if err != nil {
		return nil, blockErr(err)
	}
	return blks[0], nil
}

func newGetBlockHash(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:        "getblockhash",
		Category:    "blockchain",
		Description: "Returns the hash of the best chain's block at a height.",
		Params: []rpc.Param{{Name: "height", Type: rpc.TypeNumber,
			Description: "The height index"}},
		Result:   `"hex"    (string) The block hash`,
		Examples: []string{"1000"},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		h, err := req.Int(0)
		if err != nil {
			return nil, err
		}
		tip, err := b.Tip(ctx)
		if err != nil {
			return nil, backendError(err)
		}
		if h < 0 || h > int(tip.Height) {
			return nil, rpc.NewError(rpc.CodeInvalidParameter, "Block height out of range")
		}
		hs, err := b.BlockHashes(ctx, []int32{int32(h)})
		if err != nil {
			if errors.Is(err, chain.ErrNotFound) {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Block height out of range")
			}
			return nil, backendError(err)
		}
		return hs[0].String(), nil
	})
}

func newGetBestBlockHash(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:        "getbestblockhash",
		Category:    "blockchain",
		Description: "Returns the hash of the best chain's tip.",
		Result:      `"hex"    (string) the block hash, hex-encoded`,
		Examples:    []string{""},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		tip, err := b.Tip(ctx)
		if err != nil {
			return nil, backendError(err)
		}
		return tip.Hash.String(), nil
	})
}

func newGetBlockHeader(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:     "getblockheader",
		Category: "blockchain",
		Description: "If verbose is false, returns a string that is serialized, hex-encoded data for blockheader 'hash'.\n" +
			"If verbose is true, returns an Object with information about blockheader <hash>.",
		Params: []rpc.Param{
			{Name: "blockhash", Type: rpc.TypeHex, Description: "The block hash"},
			{Name: "verbose", Type: rpc.TypeBool, Optional: true, Default: "true",
				Description: "true for a json object, false for the hex-encoded data"},
		},
		Result:   `{ "hash", "confirmations", "height", "version", ..., "chainwork", "nTx", ... }  or  "hex"`,
		Examples: []string{`"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"`},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		hash, err := blockHashArg(req, 0, "hash")
		if err != nil {
			return nil, err
		}
		verbose, err := boolOr(req, 1, true)
		if err != nil {
			return nil, err
		}
		if !verbose {
			hdrs, err := b.Headers(ctx, []chainhash.Hash{hash})
			if err != nil {
				return nil, blockErr(err)
			}
			var buf [80]byte
			w := fixedWriter{buf: buf[:0]}
			if err := hdrs[0].Serialize(&w); err != nil {
				return nil, err
			}
			return hex.EncodeToString(w.buf), nil
		}
		blk, err := fetchBlock(ctx, b, hash)
		if err != nil {
			return nil, err
		}
		return headerJSON(ctx, b, blk)
	})
}

// fixedWriter collects written bytes.
type fixedWriter struct{ buf []byte }

func (w *fixedWriter) Write(p []byte) (int, error) { w.buf = append(w.buf, p...); return len(p), nil }

// verbosityArg is Core's ParseVerbosity of argument i (booleans allowed
// when allowBool: true is 1).
func verbosityArg(req *rpc.Request, i, def int, allowBool bool) (int, error) {
	if !req.Has(i) {
		return def, nil
	}
	if rpc.JSONType(req.Arg(i)) == "bool" {
		if !allowBool {
			return 0, rpc.NewError(rpc.CodeTypeError, "Verbosity was boolean but only integer allowed")
		}
		v, _ := req.Bool(i)
		if v {
			return 1, nil
		}
		return 0, nil
	}
	return req.Int(i)
}

func newGetBlock(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:     "getblock",
		Category: "blockchain",
		Description: "If verbosity is 0, returns a string that is serialized, hex-encoded data for block 'hash'.\n" +
			"If verbosity is 1, returns an Object with information about block <hash>.\n" +
			"If verbosity is 2, returns an Object with information about block <hash> and information about each transaction.",
		Params: []rpc.Param{
			{Name: "blockhash", Type: rpc.TypeHex, Description: "The block hash"},
			{Name: "verbosity", Aliases: []string{"verbose"}, Type: rpc.TypeNumber, Optional: true, Default: "1", SkipTypeCheck: true,
				Description: "0 for hex-encoded data, 1 for a JSON object, 2 for JSON object with transaction data"},
		},
		Result:   `"hex"  or  { "hash", "confirmations", ..., "strippedsize", "size", "weight", "tx" : [...] }`,
		Examples: []string{`"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"`},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		hash, err := blockHashArg(req, 0, "blockhash")
		if err != nil {
			return nil, err
		}
		verbosity, err := verbosityArg(req, 1, 1, true)
		if err != nil {
			return nil, err
		}
		blk, err := fetchBlock(ctx, b, hash)
		if err != nil {
			return nil, err
		}
		if verbosity <= 0 {
			w := fixedWriter{buf: make([]byte, 0, blk.SerializeSize())}
			if err := blk.Serialize(&w); err != nil {
				return nil, err
			}
			return hex.EncodeToString(w.buf), nil
		}
		hj, err := headerJSON(ctx, b, blk)
		if err != nil {
			return nil, err
		}
		size, stripped := blk.SerializeSize(), blk.SerializeSizeStripped()
		j := blockJSON{blockHeaderJSON: hj, StrippedSize: stripped, Size: size, Weight: stripped*3 + size}
		if verbosity == 1 {
			ids := make([]string, len(blk.TxIDs))
			for i, id := range blk.TxIDs {
				ids[i] = id.String()
			}
			j.Tx = ids
			return j, nil
		}
		txs, err := blockTxsJSON(ctx, b, d, blk, hj.Height, verbosity)
		if err != nil {
			return nil, err
		}
		j.Tx = txs
		return j, nil
	})
}

// chainTipJSON is one element of getchaintips.
type chainTipJSON struct {
	Height    int32  `json:"height"`
	Hash      string `json:"hash"`
	BranchLen int32  `json:"branchlen"`
	Status    string `json:"status"`
}

func newGetChainTips(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:        "getchaintips",
		Category:    "blockchain",
		Description: "Return information about all known tips in the block tree, including the main chain as well as orphaned branches.",
		Result:      `[ { "height", "hash", "branchlen", "status" }, ... ]`,
		Examples:    []string{""},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		tips, err := b.ChainTips(ctx)
		if err != nil {
			return nil, backendError(err)
		}
		out := make([]chainTipJSON, len(tips))
		for i, t := range tips {
			out[i] = chainTipJSON{Height: t.Height, Hash: t.Hash.String(), BranchLen: t.BranchLen, Status: t.Status}
		}
		return out, nil
	})
}

// blockFilterJSON is getblockfilter's result.
type blockFilterJSON struct {
	Filter string `json:"filter"`
	Header string `json:"header"`
}

func newGetBlockFilter(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:        "getblockfilter",
		Category:    "blockchain",
		Description: "Retrieve a BIP 157 content filter for a particular block.",
		Params: []rpc.Param{
			{Name: "blockhash", Type: rpc.TypeHex, Description: "The hash of the block"},
			{Name: "filtertype", Type: rpc.TypeString, Optional: true, Default: `"basic"`,
				Description: "The type name of the filter"},
		},
		Result:   `{ "filter" : "hex", "header" : "hex" }`,
		Examples: []string{`"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09" "basic"`},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		hash, err := blockHashArg(req, 0, "blockhash")
		if err != nil {
			return nil, err
		}
		if req.Has(1) {
			ft, err := req.String(1)
			if err != nil {
				return nil, err
			}
			if ft != "basic" {
				return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Unknown filtertype")
			}
		}
		fs, err := b.Filters(ctx, []chainhash.Hash{hash})
		if errors.Is(err, chain.ErrNoFilters) {
			return nil, rpc.NewError(rpc.CodeMisc, "Index is not enabled for filtertype basic")
		}
		if err != nil {
			return nil, blockErr(err)
		}
		fh, err := b.FilterHeader(ctx, hash)
		if err != nil {
			return nil, blockErr(err)
		}
		return blockFilterJSON{Filter: hex.EncodeToString(fs[0].Bytes()), Header: fh.String()}, nil
	})
}

func newGetBlockStats(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:     "getblockstats",
		Category: "blockchain",
		Description: "Compute per block statistics for a given window. All amounts are in satoshis.\n" +
			"With btcd the spent outputs come from its transaction index (-txindex).",
		Params: []rpc.Param{
			{Name: "hash_or_height", Type: rpc.TypeAny, SkipTypeCheck: true, Description: "The block hash or height of the target block"},
			{Name: "stats", Type: rpc.TypeArray, Optional: true, Default: "all values",
				Description: "Values to plot (see result below)"},
		},
		Result:   `{ "avgfee", "avgfeerate", ... }`,
		Examples: []string{`'"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"' '["minfeerate","avgfeerate"]'`},
	}, btcdBlockStats(d))
}
