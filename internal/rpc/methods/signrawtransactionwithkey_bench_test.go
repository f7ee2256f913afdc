package methods

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/address/v2/base58"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/internal/benchcpu"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/sign"
)

// p2wpkhCall builds the params of a signrawtransactionwithkey call that
// spends n P2WPKH outputs, each of its own regtest key.
func p2wpkhCall(tb testing.TB, n int) []json.RawMessage {
	tb.Helper()
	tx := wire.NewMsgTx(2)
	var wifs []string
	var prevtxs []map[string]any
	for i := range n {
		seed := sha256.Sum256([]byte{byte(i), byte(i >> 8), 'k'})
		priv := secp256k1.PrivKeyFromBytes(seed[:])
		wifs = append(wifs, base58.CheckEncode(append(seed[:], 1),
			chaincfg.RegressionNetParams.PrivateKeyID))
		h := script.Hash160(priv.PubKey().SerializeCompressed())
		var op wire.OutPoint
		binary.LittleEndian.PutUint32(op.Hash[:], uint32(i)+1)
		tx.AddTxIn(&wire.TxIn{PreviousOutPoint: op, Sequence: 0xfffffffd})
		prevtxs = append(prevtxs, map[string]any{
			"txid": op.Hash.String(), "vout": 0,
			"scriptPubKey": hex.EncodeToString(script.PayToWitnessPubKeyHash(h[:])),
			"amount":       json.Number("0.001"),
		})
	}
	tx.AddTxOut(&wire.TxOut{Value: 50_000, PkScript: script.PayToWitnessPubKeyHash(make([]byte, 20))})
	var buf bytes.Buffer
	_ = tx.Serialize(&buf)
	enc := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	return []json.RawMessage{enc(hex.EncodeToString(buf.Bytes())), enc(wifs), enc(prevtxs)}
}

// BenchmarkSignRawTransactionWithKey200 is a 200-input P2WPKH transaction
// through the method's handler: decode, keys, prevtxs, sign, verify every
// input, encode the reply.
func BenchmarkSignRawTransactionWithKey200(b *testing.B) {
	m := newSignRawTransactionWithKey(&Deps{Net: &chaincfg.RegressionNetParams})
	params := p2wpkhCall(b, 200)
	b.ReportAllocs()
	cpu := benchcpu.Used()
	for b.Loop() {
		res, err := m.Handler(context.Background(), &rpc.Request{Method: m.Name, Params: params})
		if err != nil {
			b.Fatal(err)
		}
		if !res.(*signResult).Complete {
			b.Fatal("incomplete")
		}
		if _, err := json.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
	benchcpu.Report(b, cpu)
}

// BenchmarkRaw200P2WPKH is the raw work behind
// BenchmarkSignRawTransactionWithKey200, on one goroutine: for each of the
// 200 inputs the public key of its key, the BIP 143 signature hash, the
// low-R ground ECDSA signature and its one verification with the public
// key (inside sign.SignECDSA).
func BenchmarkRaw200P2WPKH(b *testing.B) {
	const n = 200
	tx := wire.NewMsgTx(2)
	privs := make([]*secp256k1.PrivateKey, n)
	fetcher := txscript.NewMultiPrevOutFetcher(nil)
	for i := range n {
		seed := sha256.Sum256([]byte{byte(i), byte(i >> 8), 'k'})
		privs[i] = secp256k1.PrivKeyFromBytes(seed[:])
		var op wire.OutPoint
		binary.LittleEndian.PutUint32(op.Hash[:], uint32(i)+1)
		tx.AddTxIn(&wire.TxIn{PreviousOutPoint: op, Sequence: 0xfffffffd})
		h := script.Hash160(privs[i].PubKey().SerializeCompressed())
		fetcher.AddPrevOut(op, &wire.TxOut{Value: 100_000, PkScript: script.PayToWitnessPubKeyHash(h[:])})
	}
	tx.AddTxOut(&wire.TxOut{Value: 50_000, PkScript: script.PayToWitnessPubKeyHash(make([]byte, 20))})
	sigHashes := txscript.NewTxSigHashes(tx, fetcher)
	b.ReportAllocs()
	cpu := benchcpu.Used()
	for b.Loop() {
		for i, priv := range privs {
			pk := priv.PubKey()
			h := script.Hash160(pk.SerializeCompressed())
			hash, err := txscript.CalcWitnessSigHash(script.PayToPubKeyHash(h[:]), sigHashes,
				txscript.SigHashAll, tx, i, 100_000)
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := sign.SignECDSA(priv, pk, hash); !ok {
				b.Fatal("bad signature")
			}
		}
	}
	benchcpu.Report(b, cpu)
}
