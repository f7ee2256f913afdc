package methods

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
)

// getblockstats for a btcd backend, computed as Core's getblockstats does
// from the block and the outputs its inputs spend (Core reads them from its
// undo data, here from the block and btcd's transaction index).

// blockStatsJSON is getblockstats' result, members in Core's (alphabetical)
// order. Amounts and fee rates are integers (satoshis, sat/vB).
type blockStatsJSON struct {
	AvgFee             int64    `json:"avgfee"`
	AvgFeeRate         int64    `json:"avgfeerate"`
	AvgTxSize          int64    `json:"avgtxsize"`
	BlockHash          string   `json:"blockhash"`
	FeeRatePercentiles [5]int64 `json:"feerate_percentiles"`
	Height             int32    `json:"height"`
	Ins                int64    `json:"ins"`
	MaxFee             int64    `json:"maxfee"`
	MaxFeeRate         int64    `json:"maxfeerate"`
	MaxTxSize          int64    `json:"maxtxsize"`
	MedianFee          int64    `json:"medianfee"`
	MedianTime         int64    `json:"mediantime"`
	MedianTxSize       int64    `json:"mediantxsize"`
	MinFee             int64    `json:"minfee"`
	MinFeeRate         int64    `json:"minfeerate"`
	MinTxSize          int64    `json:"mintxsize"`
	Outs               int64    `json:"outs"`
	Subsidy            int64    `json:"subsidy"`
	SwTotalSize        int64    `json:"swtotal_size"`
	SwTotalWeight      int64    `json:"swtotal_weight"`
	SwTxs              int64    `json:"swtxs"`
	Time               int64    `json:"time"`
	TotalOut           int64    `json:"total_out"`
	TotalSize          int64    `json:"total_size"`
	TotalWeight        int64    `json:"total_weight"`
	TotalFee           int64    `json:"totalfee"`
	Txs                int64    `json:"txs"`
	UTXOIncrease       int64    `json:"utxo_increase"`
	UTXOSizeInc        int64    `json:"utxo_size_inc"`
	UTXOIncreaseActual int64    `json:"utxo_increase_actual"`
	UTXOSizeIncActual  int64    `json:"utxo_size_inc_actual"`
}

// perUTXOOverhead is Core's PER_UTXO_OVERHEAD: an outpoint, a height and a
// coinbase flag.
const perUTXOOverhead = 36 + 4 + 1

// maxMoney is Core's MAX_MONEY in satoshis.
const maxMoney = 21_000_000 * 100_000_000

// bip30Repeats are the two mainnet blocks whose coinbases repeat earlier
// ones (Core's IsBIP30Repeat).
var bip30Repeats = map[int32]string{
	91842: "00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec",
	91880: "00000000000743f190a18c5577a3c2d2a1f610ae9601ac046a38084ccb7cd721",
}

// truncatedMedian is Core's CalculateTruncatedMedian.
func truncatedMedian(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	if len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[len(v)/2]
}

// feeRateAt is one transaction's fee rate and weight.
type feeRateAt struct{ rate, weight int64 }

// percentilesByWeight is Core's CalculatePercentilesByWeight: the fee rates
// at the 10th, 25th, 50th, 75th and 90th percentile of the block's weight.
func percentilesByWeight(scores []feeRateAt, total int64) [5]int64 {
	var out [5]int64
	if len(scores) == 0 {
		return out
	}
	sort.Slice(scores, func(i, j int) bool {
		if scores[i].rate != scores[j].rate {
			return scores[i].rate < scores[j].rate
		}
		return scores[i].weight < scores[j].weight
	})
	w := float64(total)
	marks := [5]float64{w / 10, w / 4, w / 2, w * 3 / 4, w * 9 / 10}
	next := 0
	var cum int64
	for _, s := range scores {
		cum += s.weight
		for next < 5 && float64(cum) >= marks[next] {
			out[next] = s.rate
			next++
		}
	}
	for ; next < 5; next++ {
		out[next] = scores[len(scores)-1].rate
	}
	return out
}

// txOutSize is the serialized size of an output.
func txOutSize(o *wire.TxOut) int64 {
	return int64(8 + wire.VarIntSerializeSize(uint64(len(o.PkScript))) + len(o.PkScript))
}

// hasWitness reports whether any input of tx carries a witness.
func hasWitness(tx *wire.MsgTx) bool {
	for _, in := range tx.TxIn {
		if len(in.Witness) > 0 {
			return true
		}
	}
	return false
}

// blockStats computes every statistic of blk at height.
func blockStats(ctx context.Context, d *Deps, b chain.Backend, blk *chain.Block, height int32, onBest bool) (*blockStatsJSON, error) {
	coins, all, err := blockCoins(ctx, b, blk, height, false)
	if err != nil {
		return nil, err
	}
	if !all {
		return nil, rpc.NewError(rpc.CodeMisc, "Can't read undo data from disk")
	}
	mtp, err := medianTime(ctx, b, blk.Header, height, onBest)
	if err != nil {
		return nil, blockErr(err)
	}
	s := &blockStatsJSON{BlockHash: blk.Hash.String(), Height: height, MedianTime: mtp,
		Time: blk.Header.Timestamp.Unix(), Txs: int64(len(blk.Transactions))}
	repeat := bip30Repeats[height] == blk.Hash.String()
	minFee, minRate, minSize := int64(maxMoney), int64(maxMoney), int64(wire.MaxBlockPayload)
	var fees, sizes []int64
	var rates []feeRateAt
	for i, tx := range blk.Transactions {
		s.Outs += int64(len(tx.TxOut))
		var out int64
		for _, o := range tx.TxOut {
			out += o.Value
			size := txOutSize(o) + perUTXOOverhead
			s.UTXOSizeInc += size
			if height == 0 || repeat && i == 0 || script.IsUnspendable(o.PkScript) {
				continue
			}
			s.UTXOIncreaseActual++
			s.UTXOSizeIncActual += size
		}
		if i == 0 {
			continue
		}
		s.Ins += int64(len(tx.TxIn))
		s.TotalOut += out
		size := int64(tx.SerializeSize())
		sizes = append(sizes, size)
		s.MaxTxSize, minSize = max(s.MaxTxSize, size), min(minSize, size)
		s.TotalSize += size
		weight := int64(tx.SerializeSizeStripped()*3 + tx.SerializeSize())
		s.TotalWeight += weight
		if hasWitness(tx) {
			s.SwTxs++
			s.SwTotalSize += size
			s.SwTotalWeight += weight
		}
		var in int64
		for _, txin := range tx.TxIn {
			o := coins[txin.PreviousOutPoint].out
			in += o.Value
			size := txOutSize(o) + perUTXOOverhead
			s.UTXOSizeInc -= size
			s.UTXOSizeIncActual -= size
		}
		fee := in - out
		fees = append(fees, fee)
		s.MaxFee, minFee = max(s.MaxFee, fee), min(minFee, fee)
		s.TotalFee += fee
		var rate int64
		if weight > 0 {
			rate = fee * 4 / weight
		}
		rates = append(rates, feeRateAt{rate, weight})
		s.MaxFeeRate, minRate = max(s.MaxFeeRate, rate), min(minRate, rate)
	}
	// The increase counts spent outputs against every output.
	s.UTXOIncreaseActual -= s.Ins
	s.UTXOIncrease = s.Outs - s.Ins
	s.FeeRatePercentiles = percentilesByWeight(rates, s.TotalWeight)
	if n := int64(len(blk.Transactions)); n > 1 {
		s.AvgFee, s.AvgTxSize = s.TotalFee/(n-1), s.TotalSize/(n-1)
	}
	if s.TotalWeight > 0 {
		s.AvgFeeRate = s.TotalFee * 4 / s.TotalWeight
	}
	s.MedianFee, s.MedianTxSize = truncatedMedian(fees), truncatedMedian(sizes)
	if minFee != maxMoney {
		s.MinFee = minFee
	}
	if minRate != maxMoney {
		s.MinFeeRate = minRate
	}
	if minSize != wire.MaxBlockPayload {
		s.MinTxSize = minSize
	}
	if halvings := int64(height) / int64(d.Net.SubsidyReductionInterval); halvings < 64 {
		s.Subsidy = (50 * 100_000_000) >> halvings
	}
	return s, nil
}

// btcdBlockStats answers getblockstats from a btcd backend.
func btcdBlockStats(d *Deps) btcdFunc {
	return func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error) {
		var hash chainhash.Hash
		if rpc.JSONType(req.Arg(0)) == "number" {
			h, err := req.Int(0)
			if err != nil {
				return nil, err
			}
			if h < 0 {
				return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Target block height %d is negative", h)
			}
			tip, err := b.Tip(ctx)
			if err != nil {
				return nil, backendError(err)
			}
			if h > int(tip.Height) {
				return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Target block height %d after current tip %d", h, tip.Height)
			}
			hs, err := b.BlockHashes(ctx, []int32{int32(h)})
			if err != nil {
				return nil, blockErr(err)
			}
			hash = hs[0]
		} else {
			h, err := blockHashArg(req, 0, "hash_or_height")
			if err != nil {
				return nil, err
			}
			hash = h
		}
		var selected []string
		if req.Has(1) {
			var raw []json.RawMessage
			if err := req.Decode(1, &raw); err != nil {
				return nil, err
			}
			for _, r := range raw {
				name, err := rpc.AsString(r)
				if err != nil {
					return nil, err
				}
				selected = append(selected, name)
			}
		}
		place, err := b.BlockPlace(ctx, hash)
		if err != nil {
			return nil, blockErr(err)
		}
		blk, err := fetchBlock(ctx, b, hash)
		if err != nil {
			return nil, err
		}
		s, err := blockStats(ctx, d, b, blk, place.Height, place.Confirmations >= 0)
		if err != nil {
			return nil, err
		}
		if len(selected) == 0 {
			return s, nil
		}
		// The selected statistics, each once, in name order.
		raw, _ := json.Marshal(s)
		var all map[string]json.RawMessage
		json.Unmarshal(raw, &all)
		sort.Strings(selected)
		var o orderedObject
		for i, name := range selected {
			if i > 0 && name == selected[i-1] {
				continue
			}
			v, ok := all[name]
			if !ok {
				return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Invalid selected statistic '%s'", name)
			}
			o.keys = append(o.keys, name)
			o.vals = append(o.vals, v)
		}
		return o, nil
	}
}
