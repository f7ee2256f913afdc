package methods

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/benchcpu"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/psbt"
)

// p2wpkhPSBTCall builds the params of a descriptorprocesspsbt call over
// the same 200 P2WPKH inputs as p2wpkhCall: the PSBT of its transaction
// with each input's witness UTXO, and one wpkh(<WIF>) descriptor per key.
func p2wpkhPSBTCall(tb testing.TB, n int) []json.RawMessage {
	tb.Helper()
	raw := p2wpkhCall(tb, n)
	var txHex string
	var wifs []string
	var prevtxs []struct {
		ScriptPubKey string `json:"scriptPubKey"`
	}
	for i, v := range []any{&txHex, &wifs, &prevtxs} {
		if err := json.Unmarshal(raw[i], v); err != nil {
			tb.Fatal(err)
		}
	}
	txBytes, _ := hex.DecodeString(txHex)
	var tx wire.MsgTx
	if err := tx.Deserialize(bytes.NewReader(txBytes)); err != nil {
		tb.Fatal(err)
	}
	p := psbt.New(&tx)
	descs := make([]string, n)
	for i := range n {
		pk, _ := hex.DecodeString(prevtxs[i].ScriptPubKey)
		p.Inputs[i].WitnessUTXO = &wire.TxOut{Value: 100_000, PkScript: pk}
		descs[i] = "wpkh(" + wifs[i] + ")"
	}
	enc := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	return []json.RawMessage{enc(p.Base64()), enc(descs)}
}

// BenchmarkPSBT200 compares, in one run, descriptorprocesspsbt signing a
// 200-input P2WPKH PSBT with signrawtransactionwithkey on the same inputs,
// and decodepsbt of that PSBT (signed) with decoderawtransaction of its
// transaction.
func BenchmarkPSBT200(b *testing.B) {
	deps := &Deps{Net: &chaincfg.RegressionNetParams}
	run := func(b *testing.B, m *rpc.Method, params []json.RawMessage) {
		b.ReportAllocs()
		cpu := benchcpu.Used()
		for b.Loop() {
			res, err := m.Handler(context.Background(), &rpc.Request{Method: m.Name, Params: params})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
		benchcpu.Report(b, cpu)
	}
	signParams := p2wpkhCall(b, 200)
	psbtParams := p2wpkhPSBTCall(b, 200)
	process := newDescriptorProcessPSBT(deps)
	res, err := process.Handler(context.Background(), &rpc.Request{Method: process.Name, Params: psbtParams})
	if err != nil || !res.(*processResult).Complete {
		b.Fatalf("descriptorprocesspsbt: %v %+v", err, res)
	}
	signed := res.(*processResult)
	b.Run("signrawtransactionwithkey", func(b *testing.B) { run(b, newSignRawTransactionWithKey(deps), signParams) })
	b.Run("descriptorprocesspsbt", func(b *testing.B) { run(b, process, psbtParams) })

	// Decoding: the signed PSBT (UTXOs, finals) and its transaction.
	q, _ := base64.StdEncoding.DecodeString(signed.PSBT)
	p, err := psbt.Decode(q)
	if err != nil {
		b.Fatal(err)
	}
	p.Inputs[0].NonWitnessUTXO = nil
	psbtArg, _ := json.Marshal(p.Base64())
	txArg, _ := json.Marshal(signed.Hex)
	b.Run("decoderawtransaction", func(b *testing.B) {
		run(b, newDecodeRawTransaction(deps), []json.RawMessage{txArg})
	})
	b.Run("decodepsbt", func(b *testing.B) { run(b, newDecodePSBT(deps), []json.RawMessage{psbtArg}) })
}
