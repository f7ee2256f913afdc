package testenv

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// CoinbaseMaturity is the number of confirmations a coinbase output needs
// before it can be spent (100 on every network).
const CoinbaseMaturity = 100

// UnsignedSpend builds a version-2 transaction spending coins to outputs,
// with empty scripts and witnesses for a signer to fill in.
func UnsignedSpend(tb testing.TB, coins []Coin, outputs ...*wire.TxOut) *wire.MsgTx {
	tb.Helper()
	tx := wire.NewMsgTx(2)
	for _, c := range coins {
		h, err := chainhash.NewHashFromStrStrict(c.TxID)
		if err != nil {
			tb.Fatalf("coin txid %q: %v", c.TxID, err)
		}
		tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(h, c.Vout), nil, nil))
	}
	for _, o := range outputs {
		tx.AddTxOut(o)
	}
	return tx
}

// TxHex serialises a transaction (with witnesses when it has any) to hex.
func TxHex(tb testing.TB, tx *wire.MsgTx) string {
	tb.Helper()
	var buf bytes.Buffer
	if err := tx.Serialize(&buf); err != nil {
		tb.Fatalf("serialize transaction: %v", err)
	}
	return hex.EncodeToString(buf.Bytes())
}

// DecodeTx parses a transaction from hex.
func DecodeTx(tb testing.TB, txHex string) *wire.MsgTx {
	tb.Helper()
	raw, err := hex.DecodeString(txHex)
	if err != nil {
		tb.Fatalf("transaction hex: %v", err)
	}
	var tx wire.MsgTx
	if err := tx.Deserialize(bytes.NewReader(raw)); err != nil {
		tb.Fatalf("decode transaction: %v", err)
	}
	return &tx
}

// Confirmations returns how many blocks confirm txid, 0 while it waits in
// the mempool; it needs btcd's transaction index, which StartBtcd enables.
func (b *Btcd) Confirmations(txid string) int64 {
	b.tb.Helper()
	var tx struct {
		Confirmations int64 `json:"confirmations"`
	}
	b.mustResult(&tx, "getrawtransaction", txid, 1)
	return tx.Confirmations
}

// InMempool reports whether txid waits in btcd's mempool.
func (b *Btcd) InMempool(txid string) bool {
	b.tb.Helper()
	var ids []string
	b.mustResult(&ids, "getrawmempool")
	for _, id := range ids {
		if id == txid {
			return true
		}
	}
	return false
}

// MatureCoinbases mines enough blocks that the coinbases of the first n
// blocks are spendable and returns them.
func (b *Btcd) MatureCoinbases(n int) []Coin {
	b.tb.Helper()
	if h := b.GetBlockCount(); h < int64(n+CoinbaseMaturity) {
		b.Generate(int(int64(n+CoinbaseMaturity) - h))
	}
	coins := make([]Coin, n)
	for i := range coins {
		coins[i] = b.Coinbase(int64(i + 1))
	}
	return coins
}

// String describes a coin as txid:vout.
func (c Coin) String() string {
	return fmt.Sprintf("%s:%d", c.TxID, c.Vout)
}
