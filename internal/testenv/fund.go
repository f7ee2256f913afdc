package testenv

import (
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// FundFee is the fee, in satoshis, of a transaction Fund builds, unless
// it pays so many outputs that this is under fundFeeRate.
const FundFee = 10_000

// fundFeeRate, in sat/vB, is the least rate a Fund transaction pays: below
// about 1 sat/vB btcd relays it but does not mine it.
const fundFeeRate = 2

// fundStock is how many coinbases Fund matures when it runs out.
const fundStock = 100

// Fund pays outputs from the next unspent mature coinbase of MinerKey,
// returns the change to MinerKey's WPKH address, submits the transaction and
// returns its id; call Generate to confirm it. When no unspent coinbase is
// mature it first mines enough blocks to mature the next fundStock of them,
// which also confirms whatever waits in the mempool. It needs a node started
// with the default mining address. The transaction is signed with btcd's own
// signer: Fund is a faucet for tests, not a test of signing.
func (b *Btcd) Fund(outputs ...*wire.TxOut) string {
	b.tb.Helper()
	miner := MinerKey()
	if b.MiningAddr != miner.WPKH.Address {
		b.tb.Fatalf("Fund needs coinbases paid to MinerKey; this node mines to %s", b.MiningAddr)
	}
	b.mu.Lock()
	height := b.nextCoinbase + 1
	b.nextCoinbase = height
	b.mu.Unlock()
	if tip := b.GetBlockCount(); tip < height+CoinbaseMaturity {
		// Mature a stock of coinbases at once, so that calls in a row
		// rarely mine (and so confirm) each other's transactions.
		b.Generate(int(height + CoinbaseMaturity + fundStock - 1 - tip))
	}
	coin := b.Coinbase(height)

	var total int64
	for _, o := range outputs {
		total += o.Value
	}
	// A P2WPKH spend of one coinbase paying the outputs and the change:
	// version, counts and locktime, the input, its witness discounted,
	// each output's value, script length and script.
	vsize := int64(10 + 41 + 27)
	for _, o := range append(outputs, wire.NewTxOut(0, miner.WPKH.Script)) {
		vsize += int64(9 + len(o.PkScript))
	}
	fee := max(int64(FundFee), fundFeeRate*vsize)
	change := coin.Value - total - fee
	if change < 0 {
		b.tb.Fatalf("Fund: outputs of %d sat exceed the coinbase's %d less the fee", total, coin.Value)
	}
	if change > 0 {
		outputs = append(outputs, wire.NewTxOut(change, miner.WPKH.Script))
	}
	tx := UnsignedSpend(b.tb, []Coin{coin}, outputs...)
	fetcher := txscript.NewCannedPrevOutputFetcher(coin.Script, coin.Value)
	wit, err := txscript.WitnessSignature(tx, txscript.NewTxSigHashes(tx, fetcher), 0,
		coin.Value, coin.Script, txscript.SigHashAll, miner.Priv, true)
	if err != nil {
		b.tb.Fatalf("Fund: sign: %v", err)
	}
	tx.TxIn[0].Witness = wit
	txid, err := b.SendRawTransaction(TxHex(b.tb, tx))
	if err != nil {
		b.tb.Fatalf("Fund: sendrawtransaction: %v", err)
	}
	return txid
}
