package methods

import (
	"context"
	"errors"
	"strings"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/sign"
)

// The transaction node calls: getrawtransaction, gettxout,
// sendrawtransaction, testmempoolaccept.

// decodeTx is Core's DecodeHexTx as sendrawtransaction and
// testmempoolaccept call it (both readings tried).
func decodeTx(s string) (*wire.MsgTx, bool) { return sign.DecodeHexTx(s, true, true) }

var (
	errNoTx = rpc.NewError(rpc.CodeInvalidAddressOrKey,
		"No such mempool or blockchain transaction. Use gettransaction for wallet transactions.")
	errNoTxNoIndex = rpc.NewError(rpc.CodeInvalidAddressOrKey,
		"No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries. "+
			"Use gettransaction for wallet transactions.")
)

func newGetRawTransaction(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:     "getrawtransaction",
		Category: "rawtransactions",
		Description: "By default, this call only returns a transaction if it is in the mempool. If -txindex is enabled\n" +
			"and no blockhash argument is passed, it will return the transaction if it is in a block in the blockchain.\n" +
			"If a blockhash argument is passed, it will return the transaction if\n" +
			"the specified block is available and the transaction is in that block.",
		Params: []rpc.Param{
			{Name: "txid", Type: rpc.TypeHex, Description: "The transaction id"},
			{Name: "verbosity", Aliases: []string{"verbose"}, Type: rpc.TypeNumber, Optional: true, Default: "0", SkipTypeCheck: true,
				Description: "0 for hex-encoded data, 1 for a JSON object, and 2 for JSON object with fee and prevout"},
			{Name: "blockhash", Type: rpc.TypeHex, Optional: true,
				Description: "The block in which to look for the transaction"},
		},
		Result:   `"str"  or  { "in_active_chain", "txid", "hash", ..., "hex", "blockhash", "confirmations", "time", "blocktime" }`,
		Examples: []string{`"mytxid"`, `"mytxid" 1`},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		txid, err := blockHashArg(req, 0, "parameter 1")
		if err != nil {
			return nil, err
		}
		if txid == d.Net.GenesisBlock.Header.MerkleRoot {
			return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey,
				"The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved")
		}
		verbosity, err := verbosityArg(req, 1, 0, true)
		if err != nil {
			return nil, err
		}
		var tx *wire.MsgTx
		var place chain.TxPlace
		inActive := false
		if req.Has(2) {
			bh, err := blockHashArg(req, 2, "parameter 3")
			if err != nil {
				return nil, err
			}
			blks, err := b.Blocks(ctx, []chainhash.Hash{bh})
			if errors.Is(err, chain.ErrNotFound) {
				return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Block hash not found")
			}
			if err != nil {
				return nil, backendError(err)
			}
			for i, id := range blks[0].TxIDs {
				if id == txid {
					tx = blks[0].Transactions[i]
				}
			}
			if tx == nil {
				return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey,
					"No such transaction found in the provided block. Use gettransaction for wallet transactions.")
			}
			bp, err := b.BlockPlace(ctx, bh)
			if err != nil {
				return nil, blockErr(err)
			}
			inActive = bp.Confirmations >= 0
			place = chain.TxPlace{Block: bh, Confirmations: bp.Confirmations,
				Time: blks[0].Header.Timestamp.Unix(), BlockTime: blks[0].Header.Timestamp.Unix()}
		} else {
			tx, place, err = b.RawTransaction(ctx, txid)
			if err != nil {
				var re *chain.RPCError
				if errors.As(err, &re) && strings.Contains(re.Message, "transaction index must be enabled") {
					return nil, errNoTxNoIndex
				}
				if errors.As(err, &re) && (re.Code == -5 || strings.Contains(re.Message, "No information")) {
					return nil, errNoTx
				}
				return nil, backendError(err)
			}
		}
		if verbosity <= 0 {
			return encodeTxHex(tx), nil
		}
		return txVerboseJSON(ctx, b, d, tx, place, verbosity, req.Has(2), inActive)
	})
}

// txOutJSON is gettxout's result.
type txOutJSON struct {
	BestBlock     string     `json:"bestblock"`
	Confirmations int64      `json:"confirmations"`
	Value         rpc.Amount `json:"value"`
	ScriptPubKey  scriptJSON `json:"scriptPubKey"`
	Coinbase      bool       `json:"coinbase"`
}

func newGetTxOut(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:        "gettxout",
		Category:    "blockchain",
		Description: "Returns details about an unspent transaction output.",
		Params: []rpc.Param{
			{Name: "txid", Type: rpc.TypeString, Description: "The transaction id"},
			{Name: "n", Type: rpc.TypeNumber, Description: "vout number"},
			{Name: "include_mempool", Type: rpc.TypeBool, Optional: true, Default: "true",
				Description: "Whether to include the mempool. Note that an unspent output that is spent in the mempool won't appear."},
		},
		Result:   `null  or  { "bestblock", "confirmations", "value", "scriptPubKey" : {...}, "coinbase" }`,
		Examples: []string{`"txid" 1`},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		txid, err := blockHashArg(req, 0, "txid")
		if err != nil {
			return nil, err
		}
		n, err := req.Int64(1)
		if err != nil {
			return nil, err
		}
		if n < 0 || n > 0xffffffff {
			// Core reads the index as an unsigned 32-bit number.
			return nil, rpc.ErrIntegerOutOfRange
		}
		mempool, err := boolOr(req, 2, true)
		if err != nil {
			return nil, err
		}
		op := wire.OutPoint{Hash: txid, Index: uint32(n)}
		out, err := b.TxOut(ctx, op, mempool)
		if err != nil {
			return nil, backendError(err)
		}
		if out == nil {
			return nil, nil
		}
		if mempool {
			// Core hides an output a mempool transaction spends;
			// btcd's gettxout shows it.
			spender, err := b.MempoolSpender(ctx, op)
			if err != nil {
				return nil, backendError(err)
			}
			if spender != nil {
				return nil, nil
			}
		}
		return txOutJSON{BestBlock: out.BestBlock.String(), Confirmations: out.Confirmations,
			Value: rpc.Amount(out.Value), ScriptPubKey: scriptToJSON(out.PkScript, true, true, nil, d.Net), Coinbase: out.Coinbase}, nil
	})
}

// defaultMaxFeeRate is Core's DEFAULT_MAX_RAW_TX_FEE_RATE: 0.10 BTC/kvB.
const defaultMaxFeeRate = rpc.Amount(10_000_000)

// feeRateArg is Core's ParseFeeRate of argument i (default def), in
// sat/kvB.
func feeRateArg(req *rpc.Request, i int, def rpc.Amount) (rpc.Amount, error) {
	if !req.Has(i) {
		return def, nil
	}
	v, err := req.Amount(i)
	if err != nil {
		return 0, err
	}
	if v >= rpc.SatoshiPerBitcoin {
		return 0, rpc.NewError(rpc.CodeInvalidParameter, "Fee rates larger than or equal to 1BTC/kvB are not accepted")
	}
	return v, nil
}

// feeFor is Core's CFeeRate::GetFee: the fee at rate (sat/kvB) for vsize
// virtual bytes, rounded up; at least one satoshi for a positive rate.
func feeFor(rate rpc.Amount, vsize int64) int64 {
	fee := (int64(rate)*vsize + 999) / 1000
	if fee == 0 && rate > 0 && vsize > 0 {
		fee = 1
	}
	return fee
}

// vsizeOf is a transaction's virtual size (weight / 4, rounded up).
func vsizeOf(tx *wire.MsgTx) int64 {
	stripped := tx.SerializeSizeStripped()
	weight := int64(stripped*3 + tx.SerializeSize())
	return (weight + 3) / 4
}

// coreReason returns Core's reject reason for btcd's refusal of a
// transaction where Core has a fixed one; other reasons stay btcd's.
func coreReason(reason string) string {
	switch {
	case strings.HasPrefix(reason, "already have transaction in mempool"):
		return "txn-already-in-mempool"
	case strings.Contains(reason, "transaction already exists in blockchain"):
		return "txn-already-known"
	case reason == "missing-inputs" || strings.Contains(reason, "orphan transaction"):
		return "missing-inputs"
	case strings.HasPrefix(reason, "output already spent in mempool"):
		return "txn-mempool-conflict"
	}
	return reason
}

// coreCheckTransaction is Core's context-free CheckTransaction and the
// coinbase refusal of its mempool's PreChecks, in Core's order: the
// reject reason of a transaction the mempool refuses before looking at
// anything else, or "". btcd cannot decode a transaction without inputs
// at all and words the other refusals its own way, so the btcd
// translation asks here first.
func coreCheckTransaction(tx *wire.MsgTx) string {
	if len(tx.TxIn) == 0 {
		return "bad-txns-vin-empty"
	}
	if len(tx.TxOut) == 0 {
		return "bad-txns-vout-empty"
	}
	if tx.SerializeSizeStripped()*4 > 4_000_000 {
		return "bad-txns-oversize"
	}
	var total int64
	for _, out := range tx.TxOut {
		if out.Value < 0 {
			return "bad-txns-vout-negative"
		}
		if out.Value > int64(rpc.MaxMoney) {
			return "bad-txns-vout-toolarge"
		}
		total += out.Value
		if total < 0 || total > int64(rpc.MaxMoney) {
			return "bad-txns-txouttotal-toolarge"
		}
	}
	seen := make(map[wire.OutPoint]bool, len(tx.TxIn))
	for _, in := range tx.TxIn {
		if seen[in.PreviousOutPoint] {
			return "bad-txns-inputs-duplicate"
		}
		seen[in.PreviousOutPoint] = true
	}
	null := func(op wire.OutPoint) bool { return op.Index == wire.MaxPrevOutIndex && op.Hash == (chainhash.Hash{}) }
	if len(tx.TxIn) == 1 && null(tx.TxIn[0].PreviousOutPoint) {
		if n := len(tx.TxIn[0].SignatureScript); n < 2 || n > 100 {
			return "bad-cb-length"
		}
		return "coinbase"
	}
	for _, in := range tx.TxIn {
		if null(in.PreviousOutPoint) {
			return "bad-txns-prevout-null"
		}
	}
	return ""
}

// rejection turns btcd's refusal of a transaction into Core's
// sendrawtransaction error: outputs already in the chain are -27, missing
// inputs -25, any other rejection -26 with the reason.
func rejection(reason string) error {
	switch r := coreReason(reason); r {
	case "txn-already-known":
		return rpc.NewError(rpc.CodeVerifyAlreadyInChain, "Transaction outputs already in utxo set")
	case "missing-inputs":
		return rpc.NewError(rpc.CodeVerifyError, "bad-txns-inputs-missingorspent")
	default:
		return rpc.NewError(rpc.CodeVerifyRejected, r)
	}
}

func newSendRawTransaction(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:        "sendrawtransaction",
		Category:    "rawtransactions",
		Description: "Submit a raw transaction (serialized, hex-encoded) to the chain backend and the network.",
		Params: []rpc.Param{
			{Name: "hexstring", Type: rpc.TypeHex, Description: "The hex string of the raw transaction"},
			{Name: "maxfeerate", Type: rpc.TypeAmount, Optional: true, Default: "0.10",
				Description: "Reject transactions whose fee rate is higher than the specified value, expressed in BTC/kvB.\n" +
					"Fee rates larger than 1BTC/kvB are rejected.\nSet to 0 to accept any fee rate."},
			{Name: "maxburnamount", Type: rpc.TypeAmount, Optional: true, Default: "0.00",
				Description: "Reject transactions with provably unspendable outputs (e.g. 'datacarrier' outputs that use the OP_RETURN opcode) greater than the specified value, expressed in BTC."},
		},
		Result:   `"hex"    (string) The transaction hash in hex`,
		Examples: []string{`"signedhex"`},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		var maxBurn rpc.Amount
		if req.Has(2) {
			v, err := req.Amount(2)
			if err != nil {
				return nil, err
			}
			maxBurn = v
		}
		s, err := req.String(0)
		if err != nil {
			return nil, err
		}
		tx, ok := decodeTx(s)
		if !ok {
			return nil, rpc.NewError(rpc.CodeDeserialization, "TX decode failed. Make sure the tx has at least one input.")
		}
		for _, out := range tx.TxOut {
			if (script.IsUnspendable(out.PkScript) || !script.HasValidOps(out.PkScript)) && out.Value > int64(maxBurn) {
				return nil, rpc.NewError(rpc.CodeVerifyError,
					"Unspendable output exceeds maximum configured by user (maxburnamount)")
			}
		}
		rate, err := feeRateArg(req, 1, defaultMaxFeeRate)
		if err != nil {
			return nil, err
		}
		if reason := coreCheckTransaction(tx); reason != "" {
			return nil, rpc.NewError(rpc.CodeVerifyRejected, reason)
		}
		if rate > 0 {
			res, err := b.TestMempoolAccept(ctx, []*wire.MsgTx{tx})
			if err != nil {
				return nil, backendError(err)
			}
			if !res[0].Allowed {
				if coreReason(res[0].RejectReason) == "txn-already-in-mempool" {
					// Core answers the id of a transaction its
					// mempool already holds.
					return tx.TxHash().String(), nil
				}
				return nil, rejection(res[0].RejectReason)
			}
			if res[0].Fee > feeFor(rate, vsizeOf(tx)) {
				return nil, rpc.NewError(rpc.CodeVerifyError,
					"Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)")
			}
		}
		id, err := b.SendRawTransactionUnchecked(ctx, tx)
		if err != nil {
			var re *chain.RPCError
			if errors.As(err, &re) {
				if strings.Contains(re.Message, "already have transaction") {
					// In the mempool already: Core answers the id.
					return tx.TxHash().String(), nil
				}
				return nil, rejection(re.Message)
			}
			return nil, backendError(err)
		}
		return id.String(), nil
	})
}

// acceptJSON is one element of testmempoolaccept's result.
type acceptJSON struct {
	TxID          string          `json:"txid"`
	WTxID         string          `json:"wtxid"`
	Allowed       bool            `json:"allowed"`
	VSize         int64           `json:"vsize,omitempty"`
	Fees          *acceptFeesJSON `json:"fees,omitempty"`
	RejectReason  string          `json:"reject-reason,omitempty"`
	RejectDetails string          `json:"reject-details,omitempty"`
}

// acceptFeesJSON is testmempoolaccept's fees object.
type acceptFeesJSON struct {
	Base              rpc.Amount `json:"base"`
	EffectiveFeeRate  rpc.Amount `json:"effective-feerate"`
	EffectiveIncludes []string   `json:"effective-includes"`
}

func newTestMempoolAccept(d *Deps) *rpc.Method {
	return nodeMethod(d, &rpc.Method{
		Name:     "testmempoolaccept",
		Category: "rawtransactions",
		Description: "Returns result of mempool acceptance tests indicating if raw transaction(s) (serialized, hex-encoded) would be accepted by mempool.\n" +
			"This checks if transactions violate the consensus or policy rules.",
		Params: []rpc.Param{
			{Name: "rawtxs", Type: rpc.TypeArray, Description: "An array of hex strings of raw transactions."},
			{Name: "maxfeerate", Type: rpc.TypeAmount, Optional: true, Default: "0.10",
				Description: "Reject transactions whose fee rate is higher than the specified value, expressed in BTC/kvB"},
		},
		Result:   `[ { "txid", "wtxid", "allowed", "vsize", "fees" : { "base", "effective-feerate", "effective-includes" }, "reject-reason" }, ... ]`,
		Examples: []string{`'["signedhex"]'`},
	}, func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		var hexes []any
		if err := req.Decode(0, &hexes); err != nil {
			return nil, err
		}
		rate, err := feeRateArg(req, 1, defaultMaxFeeRate)
		if err != nil {
			return nil, err
		}
		if len(hexes) == 0 || len(hexes) > 25 {
			return nil, rpc.NewError(rpc.CodeInvalidParameter, "Array must contain between 1 and 25 transactions.")
		}
		txs := make([]*wire.MsgTx, len(hexes))
		for i, h := range hexes {
			s, ok := h.(string)
			if !ok {
				return nil, rpc.NewError(rpc.CodeTypeError, "JSON value of type "+jsonTypeOf(h)+" is not of expected type string")
			}
			tx, ok := decodeTx(s)
			if !ok {
				return nil, rpc.NewError(rpc.CodeDeserialization,
					"TX decode failed: "+s+" Make sure the tx has at least one input.")
			}
			txs[i] = tx
		}
		if len(txs) > 1 {
			return nil, errBtcdCannot("testmempoolaccept of a package")
		}
		if reason := coreCheckTransaction(txs[0]); reason != "" {
			return []acceptJSON{{TxID: txs[0].TxHash().String(), WTxID: txs[0].WitnessHash().String(),
				RejectReason: reason, RejectDetails: reason}}, nil
		}
		res, err := b.TestMempoolAccept(ctx, txs)
		if err != nil {
			return nil, backendError(err)
		}
		out := make([]acceptJSON, len(res))
		for i, r := range res {
			j := acceptJSON{TxID: r.TxID.String(), WTxID: r.WTxID.String(), Allowed: r.Allowed}
			vsize := vsizeOf(txs[i])
			if r.Allowed && rate > 0 && r.Fee > feeFor(rate, vsize) {
				j.Allowed, j.RejectReason = false, "max-fee-exceeded"
			}
			if j.Allowed {
				j.VSize = vsize
				j.Fees = &acceptFeesJSON{Base: rpc.Amount(r.Fee),
					EffectiveFeeRate:  rpc.Amount(r.Fee * 1000 / vsize),
					EffectiveIncludes: []string{r.WTxID.String()}}
			} else if j.RejectReason == "" {
				// Core adds its validation state's text except for
				// missing inputs; btcd's reason stands for it.
				j.RejectReason = coreReason(r.RejectReason)
				if j.RejectReason != "missing-inputs" {
					j.RejectDetails = j.RejectReason
				}
			}
			out[i] = j
		}
		return out, nil
	})
}

// jsonTypeOf names the JSON type of a decoded value as Core does.
func jsonTypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "number"
}
