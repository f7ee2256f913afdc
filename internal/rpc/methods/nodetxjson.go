package methods

import (
	"context"

	"github.com/btcsuite/btcd/chainhash/v2"

	"github.com/btcsuite/btcd/wire/v2"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
)

// The verbose transaction forms of getrawtransaction and getblock, built
// on txToJSON (Core's TxToUniv).

// rawTxVerboseJSON is getrawtransaction's verbose result (Core's TxToJSON):
// in_active_chain when a block was named, the transaction with its hex,
// then where it was mined.
type rawTxVerboseJSON struct {
	InActiveChain *bool `json:"in_active_chain,omitempty"`
	*decodedTx
	BlockHash     string `json:"blockhash,omitempty"`
	Confirmations *int64 `json:"confirmations,omitempty"`
	Time          int64  `json:"time,omitempty"`
	BlockTime     int64  `json:"blocktime,omitempty"`
}

// txVerboseJSON describes tx found at place. Verbosity 2 answers as 1: btcd
// keeps no undo data to show the spent outputs.
func txVerboseJSON(d *Deps, tx *wire.MsgTx, place chain.TxPlace, namedBlock, inActive bool) (any, error) {
	j := rawTxVerboseJSON{decodedTx: txToJSON(tx, d.Net, txOptions{IncludeHex: true})}
	if namedBlock {
		j.InActiveChain = &inActive
	}
	if place.Block != (chainhash.Hash{}) {
		j.BlockHash = place.Block.String()
		conf := place.Confirmations
		if conf < 0 {
			conf = 0
		}
		j.Confirmations = &conf
		if place.Confirmations > 0 {
			j.Time, j.BlockTime = place.Time, place.BlockTime
		}
	}
	return j, nil
}

// blockTxJSON is one transaction of getblock at verbosity 2: TxToUniv with
// the fee (for every transaction but the coinbase) and the hex.
type blockTxJSON struct {
	*decodedTx
	Fee *rpc.Amount `json:"fee,omitempty"`
	Hex string      `json:"hex"`
}

// blockPrevouts returns the transactions whose outputs the inputs of blk
// spend, from the block itself and the backend (btcd answers mined ones
// with its transaction index), and whether every one was found.
func blockPrevouts(ctx context.Context, b chain.Backend, blk *chain.Block) (map[chainhash.Hash]*wire.MsgTx, bool, error) {
	known := make(map[chainhash.Hash]*wire.MsgTx, len(blk.Transactions))
	for i, tx := range blk.Transactions {
		known[blk.TxIDs[i]] = tx
	}
	var missing []chainhash.Hash
	seen := map[chainhash.Hash]bool{}
	for _, tx := range blk.Transactions[1:] {
		for _, in := range tx.TxIn {
			h := in.PreviousOutPoint.Hash
			if known[h] == nil && !seen[h] {
				seen[h] = true
				missing = append(missing, h)
			}
		}
	}
	all := true
	if len(missing) > 0 {
		txs, err := b.MempoolTxs(ctx, missing)
		if err != nil {
			return nil, false, backendError(err)
		}
		for i, tx := range txs {
			if tx == nil {
				all = false
				continue
			}
			known[missing[i]] = tx
		}
	}
	return known, all, nil
}

// spentOutput returns the output in spends, from prevouts.
func spentOutput(prevouts map[chainhash.Hash]*wire.MsgTx, in *wire.TxIn) (*wire.TxOut, bool) {
	prev := prevouts[in.PreviousOutPoint.Hash]
	if prev == nil || int(in.PreviousOutPoint.Index) >= len(prev.TxOut) {
		return nil, false
	}
	return prev.TxOut[in.PreviousOutPoint.Index], true
}

// blockTxsJSON describes the transactions of blk for getblock at verbosity
// 2 and above. The fees come from the spent outputs (blockPrevouts); when
// one cannot be read the fees are left out, as Core leaves them out
// without undo data.
func blockTxsJSON(ctx context.Context, b chain.Backend, d *Deps, blk *chain.Block) ([]blockTxJSON, error) {
	prevouts, haveFees, err := blockPrevouts(ctx, b, blk)
	if err != nil {
		return nil, err
	}
	out := make([]blockTxJSON, len(blk.Transactions))
	for i, tx := range blk.Transactions {
		j := blockTxJSON{decodedTx: txToJSON(tx, d.Net, txOptions{}), Hex: encodeTxHex(tx)}
		if i > 0 && haveFees {
			var in int64
			for _, txin := range tx.TxIn {
				o, ok := spentOutput(prevouts, txin)
				if !ok {
					return nil, rpc.NewError(rpc.CodeMisc, "chain backend: spent output of "+blk.TxIDs[i].String()+" not found")
				}
				in += o.Value
			}
			for _, o := range tx.TxOut {
				in -= o.Value
			}
			fee := rpc.Amount(in)
			j.Fee = &fee
		}
		out[i] = j
	}
	return out, nil
}
