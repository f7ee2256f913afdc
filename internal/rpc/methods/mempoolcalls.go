package methods

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
)

// The mempool and fee node calls: getrawmempool, getmempoolinfo,
// getmempoolentry, estimatesmartfee.

// mempoolFeesJSON is the fees object of a mempool entry.
type mempoolFeesJSON struct {
	Base       rpc.Amount `json:"base"`
	Modified   rpc.Amount `json:"modified"`
	Ancestor   rpc.Amount `json:"ancestor"`
	Descendant rpc.Amount `json:"descendant"`
	Chunk      rpc.Amount `json:"chunk"`
}

// mempoolEntryJSON is Core's entryToJSON, in its field order.
type mempoolEntryJSON struct {
	VSize           int64           `json:"vsize"`
	Weight          int64           `json:"weight"`
	Time            int64           `json:"time"`
	Height          int64           `json:"height"`
	DescendantCount int             `json:"descendantcount"`
	DescendantSize  int64           `json:"descendantsize"`
	AncestorCount   int             `json:"ancestorcount"`
	AncestorSize    int64           `json:"ancestorsize"`
	WTxID           string          `json:"wtxid"`
	ChunkWeight     int64           `json:"chunkweight"`
	Fees            mempoolFeesJSON `json:"fees"`
	Depends         []string        `json:"depends"`
	SpentBy         []string        `json:"spentby"`
	Replaceable     bool            `json:"bip125-replaceable"`
	Unbroadcast     bool            `json:"unbroadcast"`
}

// mempoolView is btcd's mempool with the relations Core reports: each
// entry's in-mempool parents and children, and its transaction.
type mempoolView struct {
	entries  map[chainhash.Hash]*chain.MempoolEntry
	children map[chainhash.Hash][]chainhash.Hash
	txs      map[chainhash.Hash]*wire.MsgTx
}

// readMempool reads btcd's verbose mempool and the transactions of ids
// (all of them when ids is nil).
func readMempool(ctx context.Context, b chain.Backend, ids []chainhash.Hash) (*mempoolView, error) {
	entries, err := b.MempoolEntries(ctx)
	if err != nil {
		return nil, backendError(err)
	}
	v := &mempoolView{entries: make(map[chainhash.Hash]*chain.MempoolEntry, len(entries)),
		children: map[chainhash.Hash][]chainhash.Hash{}, txs: map[chainhash.Hash]*wire.MsgTx{}}
	for i := range entries {
		e := &entries[i]
		v.entries[e.TxID] = e
	}
	for _, e := range entries {
		for _, p := range e.Depends {
			if _, ok := v.entries[p]; ok {
				v.children[p] = append(v.children[p], e.TxID)
			}
		}
	}
	if ids == nil {
		for id := range v.entries {
			ids = append(ids, id)
		}
	}
	var want []chainhash.Hash
	for _, id := range ids {
		if _, ok := v.entries[id]; ok {
			want = append(want, id)
		}
	}
	txs, err := b.MempoolTxs(ctx, want)
	if err != nil {
		return nil, backendError(err)
	}
	for i, tx := range txs {
		if tx != nil {
			v.txs[want[i]] = tx
		}
	}
	return v, nil
}

// closure returns the transactions reachable from id through next (its
// ancestors or its descendants), id included.
func (v *mempoolView) closure(id chainhash.Hash, next func(chainhash.Hash) []chainhash.Hash) []chainhash.Hash {
	seen := map[chainhash.Hash]bool{id: true}
	out := []chainhash.Hash{id}
	for i := 0; i < len(out); i++ {
		for _, n := range next(out[i]) {
			if _, ok := v.entries[n]; ok && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// replaceable is Core's IsRBFOptIn: the transaction or an in-mempool
// ancestor signals BIP 125.
func (v *mempoolView) replaceable(anc []chainhash.Hash) bool {
	for _, id := range anc {
		tx := v.txs[id]
		if tx == nil {
			continue
		}
		for _, in := range tx.TxIn {
			if in.Sequence < 0xfffffffe {
				return true
			}
		}
	}
	return false
}

// entryJSON describes mempool transaction id in Core's shape. btcd keeps
// no clusters: the chunk is the transaction with its in-mempool ancestors
// (Core's chunk for the usual parent-pays and child-pays cases).
func (v *mempoolView) entryJSON(id chainhash.Hash) (mempoolEntryJSON, bool) {
	e, ok := v.entries[id]
	tx := v.txs[id]
	if !ok || tx == nil {
		return mempoolEntryJSON{}, false
	}
	anc := v.closure(id, func(h chainhash.Hash) []chainhash.Hash { return v.entries[h].Depends })
	desc := v.closure(id, func(h chainhash.Hash) []chainhash.Hash { return v.children[h] })
	j := mempoolEntryJSON{VSize: e.VSize, Weight: e.Weight, Time: e.Time, Height: e.Height,
		DescendantCount: len(desc), AncestorCount: len(anc), WTxID: tx.WitnessHash().String(),
		Fees:    mempoolFeesJSON{Base: rpc.Amount(e.Fee), Modified: rpc.Amount(e.Fee)},
		Depends: []string{}, SpentBy: []string{}, Replaceable: v.replaceable(anc)}
	for _, a := range anc {
		j.AncestorSize += v.entries[a].VSize
		j.Fees.Ancestor += rpc.Amount(v.entries[a].Fee)
		j.ChunkWeight += v.entries[a].Weight
	}
	j.Fees.Chunk = j.Fees.Ancestor
	for _, dd := range desc {
		j.DescendantSize += v.entries[dd].VSize
		j.Fees.Descendant += rpc.Amount(v.entries[dd].Fee)
	}
	for _, p := range e.Depends {
		if _, ok := v.entries[p]; ok {
			j.Depends = append(j.Depends, p.String())
		}
	}
	for _, c := range v.children[id] {
		j.SpentBy = append(j.SpentBy, c.String())
	}
	sort.Strings(j.Depends)
	sort.Strings(j.SpentBy)
	return j, true
}

// orderedEntries is getrawmempool's verbose object, members in txid
// order.
type orderedEntries struct {
	ids     []string
	entries []mempoolEntryJSON
}

// MarshalJSON writes the members in order.
func (o orderedEntries) MarshalJSON() ([]byte, error) {
	out := []byte{'{'}
	for i, id := range o.ids {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, id...)
		out = append(out, '"', ':')
		b, err := json.Marshal(o.entries[i])
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return append(out, '}'), nil
}

var errNotInMempool = rpc.NewError(rpc.CodeInvalidAddressOrKey, "Transaction not in mempool")

func newGetRawMempool(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:     "getrawmempool",
		Category: "blockchain",
		Description: "Returns all transaction ids in memory pool as a json array of string transaction ids.\n" +
			"Hint: use getmempoolentry to fetch a specific transaction from the mempool.",
		Params: []rpc.Param{
			{Name: "verbose", Type: rpc.TypeBool, Optional: true, Default: "false",
				Description: "True for a json object, false for array of transaction ids"},
			{Name: "mempool_sequence", Type: rpc.TypeBool, Optional: true, Default: "false",
				Description: "If verbose=false, returns a json object with transaction list and mempool sequence number attached."},
		},
		Result:   `[ "hex", ... ]  or  { "txid" : { "vsize", "weight", "time", "height", ... }, ... }`,
		Examples: []string{"true"},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		verbose, err := boolOr(req, 0, false)
		if err != nil {
			return nil, err
		}
		seq, err := boolOr(req, 1, false)
		if err != nil {
			return nil, err
		}
		if verbose && seq {
			return nil, rpc.NewError(rpc.CodeInvalidParameter, "Verbose results cannot contain mempool sequence values.")
		}
		if seq {
			return nil, errBtcdCannot("getrawmempool with mempool_sequence")
		}
		if !verbose {
			ids, err := b.MempoolTxIDs(ctx)
			if err != nil {
				return nil, backendError(err)
			}
			out := make([]string, len(ids))
			for i, id := range ids {
				out[i] = id.String()
			}
			sort.Strings(out)
			return out, nil
		}
		v, err := readMempool(ctx, b, nil)
		if err != nil {
			return nil, err
		}
		var o orderedEntries
		for id := range v.txs {
			o.ids = append(o.ids, id.String())
		}
		sort.Strings(o.ids)
		for _, s := range o.ids {
			h, _ := chainhash.NewHashFromStr(s)
			e, _ := v.entryJSON(*h)
			o.entries = append(o.entries, e)
		}
		return o, nil
	})
}

func newGetMempoolEntry(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:        "getmempoolentry",
		Category:    "blockchain",
		Description: "Returns mempool data for given transaction",
		Params: []rpc.Param{{Name: "txid", Type: rpc.TypeHex,
			Description: "The transaction id (must be in mempool)"}},
		Result:   `{ "vsize", "weight", "time", "height", "descendantcount", ..., "fees" : {...}, "depends", "spentby", ... }`,
		Examples: []string{`"mytxid"`},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		id, err := blockHashArg(req, 0, "txid")
		if err != nil {
			return nil, err
		}
		v, err := readMempool(ctx, b, []chainhash.Hash{id})
		if err != nil {
			return nil, err
		}
		e, ok := v.entryJSON(id)
		if !ok {
			return nil, errNotInMempool
		}
		return e, nil
	})
}

// mempoolInfoJSON is getmempoolinfo's result.
type mempoolInfoJSON struct {
	Loaded              bool       `json:"loaded"`
	Size                int        `json:"size"`
	Bytes               int64      `json:"bytes"`
	Usage               int64      `json:"usage"`
	TotalFee            rpc.Amount `json:"total_fee"`
	MaxMempool          int64      `json:"maxmempool"`
	MempoolMinFee       rpc.Amount `json:"mempoolminfee"`
	MinRelayTxFee       rpc.Amount `json:"minrelaytxfee"`
	IncrementalRelayFee rpc.Amount `json:"incrementalrelayfee"`
	UnbroadcastCount    int        `json:"unbroadcastcount"`
	FullRBF             bool       `json:"fullrbf"`
	PermitBareMultisig  bool       `json:"permitbaremultisig"`
	MaxDataCarrierSize  int        `json:"maxdatacarriersize"`
	LimitClusterCount   int        `json:"limitclustercount"`
	LimitClusterSize    int        `json:"limitclustersize"`
}

// The policy values getmempoolinfo reports for btcd, which does not report
// them itself: btcd caps no mempool size and keeps no clusters (Core's
// defaults are shown), relays 1 sat/vB (btcdRelayFee), relays bare
// multisig, and takes null-data outputs of up to 83 bytes of script.
const (
	coreMaxMempool        = 300_000_000
	btcdMaxDataCarrier    = 83
	coreLimitClusterCount = 64
	coreLimitClusterSize  = 101_000
)

func newGetMempoolInfo(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:        "getmempoolinfo",
		Category:    "blockchain",
		Description: "Returns details on the active state of the TX memory pool.",
		Result:      `{ "loaded", "size", "bytes", "usage", "total_fee", "maxmempool", "mempoolminfee", "minrelaytxfee", ... }`,
		Examples:    []string{""},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		entries, err := b.MempoolEntries(ctx)
		if err != nil {
			return nil, backendError(err)
		}
		j := mempoolInfoJSON{Loaded: true, Size: len(entries), MaxMempool: coreMaxMempool,
			MempoolMinFee: btcdRelayFee, MinRelayTxFee: btcdRelayFee, IncrementalRelayFee: btcdRelayFee,
			FullRBF: false, PermitBareMultisig: true, MaxDataCarrierSize: btcdMaxDataCarrier,
			LimitClusterCount: coreLimitClusterCount, LimitClusterSize: coreLimitClusterSize}
		for _, e := range entries {
			j.Bytes += e.VSize
			j.TotalFee += rpc.Amount(e.Fee)
			// btcd does not report its memory use: count each entry's
			// weight, which bounds its serialized size.
			j.Usage += e.Weight
		}
		return j, nil
	})
}

// smartFeeJSON is estimatesmartfee's result.
type smartFeeJSON struct {
	FeeRate *rpc.Amount `json:"feerate,omitempty"`
	Errors  []string    `json:"errors,omitempty"`
	Blocks  int         `json:"blocks"`
}

// maxConfTarget is the highest confirmation target Core's estimator
// tracks.
const maxConfTarget = 1008

func newEstimateSmartFee(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:     "estimatesmartfee",
		Category: "util",
		Description: "Estimates the approximate fee per kilobyte needed for a transaction to begin\n" +
			"confirmation within conf_target blocks if possible and return the number of blocks\n" +
			"for which the estimate is valid. Uses virtual transaction size as defined\n" +
			"in BIP 141 (witness data is discounted).",
		Params: []rpc.Param{
			{Name: "conf_target", Type: rpc.TypeNumber, Description: "Confirmation target in blocks (1 - 1008)"},
			{Name: "estimate_mode", Type: rpc.TypeString, Optional: true, Default: `"economical"`,
				Description: "The fee estimate mode: \"unset\", \"economical\" or \"conservative\""},
		},
		Result:   `{ "feerate" : n, "errors" : [ "str", ... ], "blocks" : n }`,
		Examples: []string{"6", `6 "economical"`},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		target, err := req.Int(0)
		if err != nil {
			return nil, err
		}
		if target < 1 || target > maxConfTarget {
			return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Invalid conf_target, must be between %d and %d", 1, maxConfTarget)
		}
		if req.Has(1) {
			mode, err := req.String(1)
			if err != nil {
				return nil, err
			}
			switch strings.ToLower(mode) {
			case "unset", "economical", "conservative":
			default:
				return nil, rpc.NewError(rpc.CodeInvalidParameter,
					`Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"`)
			}
		}
		rate, err := b.EstimateFee(ctx, target)
		if err != nil {
			return nil, backendError(err)
		}
		if rate <= 0 {
			return smartFeeJSON{Errors: []string{"Insufficient data or no feerate found"}, Blocks: 0}, nil
		}
		fr := rpc.Amount(max(rate, btcdRelayFee))
		return smartFeeJSON{FeeRate: &fr, Blocks: target}, nil
	})
}
