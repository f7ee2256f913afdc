package methods

import (
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/psbt"
)

// TestJoinPSBTs joins two PSBTs: every input and output appears once, in
// any order (joinpsbts shuffles), with the highest version and the lowest
// lock time, and partial signatures are dropped.
func TestJoinPSBTs(t *testing.T) {
	addr := "bcrt1qmpwzkuwsqc9snjvgdt4czhjsnywa5yjdqpxskv"
	mk := func(txid string, vout int, locktime, version int) string {
		var s string
		in := []map[string]any{{"txid": txid, "vout": vout}}
		out := []map[string]any{{addr: 0.5 + float64(vout)}}
		callResult(t, "createpsbt", []any{in, out, locktime, false, version}, &s)
		return s
	}
	a := mk(strings.Repeat("11", 32), 0, 100, 1)
	b := mk(strings.Repeat("22", 32), 1, 50, 2)
	pb, _ := psbt.DecodeBase64(b)
	g, _ := hex.DecodeString("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
	sig, _ := hex.DecodeString("300602010102010101")
	pb.Inputs[0].PartialSigs = map[[20]byte]psbt.PartialSig{script.Hash160(g): {PubKey: g, Signature: sig}}
	var joined string
	callResult(t, "joinpsbts", []any{[]string{a, pb.Base64()}}, &joined)
	p, err := psbt.DecodeBase64(joined)
	if err != nil {
		t.Fatal(err)
	}
	if p.UnsignedTx.Version != 2 || p.UnsignedTx.LockTime != 50 {
		t.Fatalf("version %d locktime %d", p.UnsignedTx.Version, p.UnsignedTx.LockTime)
	}
	var ins, outs []string
	for _, in := range p.UnsignedTx.TxIn {
		ins = append(ins, in.PreviousOutPoint.String())
	}
	for _, o := range p.UnsignedTx.TxOut {
		outs = append(outs, string(rune(o.Value)))
	}
	sort.Strings(ins)
	want := []string{strings.Repeat("11", 32) + ":0", strings.Repeat("22", 32) + ":1"}
	if len(ins) != 2 || ins[0] != want[0] || ins[1] != want[1] || len(outs) != 2 {
		t.Fatalf("inputs %v outputs %d", ins, len(outs))
	}
	for _, in := range p.Inputs {
		if len(in.PartialSigs) != 0 {
			t.Fatal("partial signatures kept")
		}
	}
	// The same input twice is refused.
	raw, _ := json.Marshal([]any{[]string{a, a}})
	body := string(rawCall(t, statelessServer(t), "joinpsbts", raw))
	if !strings.Contains(body, "exists in multiple PSBTs") {
		t.Fatalf("duplicate input: %s", body)
	}
}
