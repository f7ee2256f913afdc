package methods

import (
	"context"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
)

// The verbose transaction forms of getrawtransaction and getblock, built
// on txToJSON (Core's TxToUniv). Core reads the outputs a mined
// transaction spends from its undo data; here they come from the block
// itself and the backend (btcd answers mined transactions with its
// transaction index).

// rawTxVerboseJSON is getrawtransaction's verbose result (Core's TxToJSON):
// in_active_chain when a block was named, the transaction, its fee (with
// the spent outputs), its hex, then where it was mined.
type rawTxVerboseJSON struct {
	InActiveChain *bool `json:"in_active_chain,omitempty"`
	*decodedTx
	Fee           *rpc.Amount `json:"fee,omitempty"`
	Hex           string      `json:"hex"`
	BlockHash     string      `json:"blockhash,omitempty"`
	Confirmations *int64      `json:"confirmations,omitempty"`
	Time          int64       `json:"time,omitempty"`
	BlockTime     int64       `json:"blocktime,omitempty"`
}

// prevoutJSON is the prevout of an input at Core's highest verbosity.
type prevoutJSON struct {
	Generated    bool       `json:"generated"`
	Height       int64      `json:"height"`
	Value        rpc.Amount `json:"value"`
	ScriptPubKey scriptJSON `json:"scriptPubKey"`
}

// spentCoin is an output a transaction spends, as Core's undo data keeps
// it: the output, whether a coinbase created it, and at what height.
type spentCoin struct {
	out      *wire.TxOut
	coinbase bool
	height   int64
}

// spentCoins returns the outputs the inputs of txs spend. Outputs of
// transactions in inBlock (those of the same block, at blockHeight) are
// read there, the others from the backend: their heights only when
// withHeights is set (a verbose lookup each). ok is false when one cannot
// be read.
func spentCoins(ctx context.Context, b chain.Backend, txs []*wire.MsgTx, inBlock map[chainhash.Hash]*wire.MsgTx,
	blockHeight int64, withHeights bool) (map[wire.OutPoint]spentCoin, bool, error) {
	type source struct {
		tx     *wire.MsgTx
		height int64
	}
	sources := map[chainhash.Hash]source{}
	for id, tx := range inBlock {
		sources[id] = source{tx, blockHeight}
	}
	var missing []chainhash.Hash
	for _, tx := range txs {
		if isCoinbase(tx) {
			continue
		}
		for _, in := range tx.TxIn {
			h := in.PreviousOutPoint.Hash
			if _, ok := sources[h]; !ok {
				sources[h] = source{}
				missing = append(missing, h)
			}
		}
	}
	if len(missing) > 0 {
		if withHeights {
			tip, err := b.Tip(ctx)
			if err != nil {
				return nil, false, backendError(err)
			}
			found, places, err := b.RawTransactions(ctx, missing)
			if err != nil {
				return nil, false, backendError(err)
			}
			for i, tx := range found {
				if tx != nil && places[i].Confirmations > 0 {
					sources[missing[i]] = source{tx, int64(tip.Height) - places[i].Confirmations + 1}
				}
			}
		} else {
			found, err := b.MempoolTxs(ctx, missing)
			if err != nil {
				return nil, false, backendError(err)
			}
			for i, tx := range found {
				if tx != nil {
					sources[missing[i]] = source{tx: tx}
				}
			}
		}
	}
	coins := map[wire.OutPoint]spentCoin{}
	for _, tx := range txs {
		if isCoinbase(tx) {
			continue
		}
		for _, in := range tx.TxIn {
			op := in.PreviousOutPoint
			src := sources[op.Hash]
			if src.tx == nil || int(op.Index) >= len(src.tx.TxOut) {
				return nil, false, nil
			}
			coins[op] = spentCoin{out: src.tx.TxOut[op.Index], coinbase: isCoinbase(src.tx), height: src.height}
		}
	}
	return coins, true, nil
}

// withUndo adds what Core shows with undo data to j, the txToJSON form of
// tx: the prevout of each input when prevouts is set, and returns the fee.
func withUndo(d *Deps, j *decodedTx, tx *wire.MsgTx, coins map[wire.OutPoint]spentCoin, prevouts bool) rpc.Amount {
	var fee int64
	for i, in := range tx.TxIn {
		c := coins[in.PreviousOutPoint]
		fee += c.out.Value
		if prevouts {
			j.Vin[i].Prevout = &prevoutJSON{Generated: c.coinbase, Height: c.height, Value: rpc.Amount(c.out.Value),
				ScriptPubKey: scriptToJSON(c.out.PkScript, true, true, nil, d.Net)}
		}
	}
	for _, o := range tx.TxOut {
		fee -= o.Value
	}
	return rpc.Amount(fee)
}

// txVerboseJSON describes tx found at place (blockHeight when mined) at
// verbosity 1, or 2 with its fee and spent outputs when it is mined, not a
// coinbase, and they can be read.
func txVerboseJSON(ctx context.Context, b chain.Backend, d *Deps, tx *wire.MsgTx, place chain.TxPlace,
	verbosity int, namedBlock, inActive bool) (any, error) {
	j := rawTxVerboseJSON{decodedTx: txToJSON(tx, d.Net, txOptions{}), Hex: encodeTxHex(tx)}
	if namedBlock {
		j.InActiveChain = &inActive
	}
	mined := place.Block != (chainhash.Hash{})
	if verbosity >= 2 && mined && !isCoinbase(tx) {
		bp, err := b.BlockPlace(ctx, place.Block)
		if err != nil {
			return nil, blockErr(err)
		}
		coins, ok, err := spentCoins(ctx, b, []*wire.MsgTx{tx}, nil, int64(bp.Height), true)
		if err != nil {
			return nil, err
		}
		if ok {
			fee := withUndo(d, j.decodedTx, tx, coins, true)
			j.Fee = &fee
		}
	}
	if mined {
		j.BlockHash = place.Block.String()
		conf := max(place.Confirmations, 0)
		j.Confirmations = &conf
		if place.Confirmations > 0 {
			j.Time, j.BlockTime = place.Time, place.BlockTime
		}
	}
	return j, nil
}

// blockTxJSON is one transaction of getblock at verbosity 2 and 3:
// TxToUniv with the fee (for every transaction but the coinbase) and the
// hex.
type blockTxJSON struct {
	*decodedTx
	Fee *rpc.Amount `json:"fee,omitempty"`
	Hex string      `json:"hex"`
}

// blockCoins returns the outputs the transactions of blk spend (see
// spentCoins).
func blockCoins(ctx context.Context, b chain.Backend, blk *chain.Block, height int32, withHeights bool) (map[wire.OutPoint]spentCoin, bool, error) {
	inBlock := make(map[chainhash.Hash]*wire.MsgTx, len(blk.Transactions))
	for i, tx := range blk.Transactions {
		inBlock[blk.TxIDs[i]] = tx
	}
	return spentCoins(ctx, b, blk.Transactions, inBlock, int64(height), withHeights)
}

// blockTxsJSON describes the transactions of blk (at height) for getblock
// at verbosity 2, and 3 with each input's prevout. When a spent output
// cannot be read the fees are left out, as Core leaves them out without
// undo data.
func blockTxsJSON(ctx context.Context, b chain.Backend, d *Deps, blk *chain.Block, height int32, verbosity int) ([]blockTxJSON, error) {
	coins, haveUndo, err := blockCoins(ctx, b, blk, height, verbosity >= 3)
	if err != nil {
		return nil, err
	}
	out := make([]blockTxJSON, len(blk.Transactions))
	for i, tx := range blk.Transactions {
		j := blockTxJSON{decodedTx: txToJSON(tx, d.Net, txOptions{}), Hex: encodeTxHex(tx)}
		if i > 0 && haveUndo {
			fee := withUndo(d, j.decodedTx, tx, coins, verbosity >= 3)
			j.Fee = &fee
		}
		out[i] = j
	}
	return out, nil
}
