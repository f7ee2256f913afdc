package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
	"github.com/descwallet/descwallet/psbt"
)

// fundedNode is an offline node with wallet "w" holding one confirmed
// coin of 1 BTC on a bech32 (wpkh) and one on a bech32m (tr) address.
func fundedNode(t *testing.T) *bumpNode {
	t.Helper()
	return fundedNodeOn(t, t.TempDir(), walletdb.Opener{})
}

// fundedNodeOn is fundedNode over dir with the wallets on opener's store.
func fundedNodeOn(t *testing.T, dir string, opener wallet.Opener) *bumpNode {
	t.Helper()
	ctx := context.Background()
	n := newOptionsNodeOn(t, dir, map[string]string{"fallbackfee": "0.0001"}, nil, opener)
	t.Cleanup(func() { n.mgr.Close() })
	n.rawCallPath("/", "createwallet", json.RawMessage(`["w"]`))
	w, ok := n.mgr.Get("w")
	if !ok {
		t.Fatal("no wallet")
	}
	b := &bumpNode{n: n, w: w}
	fund := wire.NewMsgTx(2)
	fund.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{0x43}}, nil, nil))
	for _, typ := range []string{"bech32", "bech32m"} {
		res, e := b.call(t, "getnewaddress", fmt.Sprintf(`["", %q]`, typ))
		if e != nil {
			t.Fatalf("getnewaddress: %+v", e)
		}
		var a string
		json.Unmarshal(res, &a)
		spk, err := address.Decode(a, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		fund.AddTxOut(wire.NewTxOut(100_000_000, spk))
	}
	if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: 200, Hash: chainhash.Hash{0xb2}, Time: 1700000000},
		[]*wire.MsgTx{fund}, []int{1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 200, Hash: [32]byte{0xb2}}}); err != nil {
		t.Fatal(err)
	}
	return b
}

// sendReply is the reply of send and sendall.
type sendReply struct {
	PSBT     *string `json:"psbt"`
	TxID     *string `json:"txid"`
	Hex      *string `json:"hex"`
	Complete bool    `json:"complete"`
}

func (b *bumpNode) send(t *testing.T, method, params string) (sendReply, *psbt.Packet) {
	t.Helper()
	res, e := b.call(t, method, params)
	if e != nil {
		t.Fatalf("%s %s: %+v", method, params, e)
	}
	var r sendReply
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	if r.PSBT == nil {
		return r, nil
	}
	p, err := psbt.DecodeBase64(*r.PSBT)
	if err != nil {
		t.Fatal(err)
	}
	return r, p
}

// hasDerivs tells whether an input or output map carries a key origin of
// the wallet's (m/84'/1'/0' or m/86'/1'/0' paths under any fingerprint)
// and, for taproot, the internal key.
func inputDerivs(in *psbt.Input) bool {
	return len(in.BIP32Derivs) > 0 || (len(in.TapBIP32Derivs) > 0 && in.TapInternalKey != [32]byte{})
}

func outputDerivs(out *psbt.Output) bool {
	return len(out.BIP32Derivs) > 0 || (len(out.TapBIP32Derivs) > 0 && out.TapInternalKey != [32]byte{})
}

// walletOutputs counts the outputs of p that carry derivations.
func walletOutputs(p *psbt.Packet) int {
	n := 0
	for i := range p.Outputs {
		if outputDerivs(&p.Outputs[i]) {
			n++
		}
	}
	return n
}

// TestSendLockedWallet checks Core's FinishTransaction on a locked wallet:
// send and sendall do not fail with -13 but return the PSBT unsigned,
// complete false, with no txid or hex, and nothing is recorded; the PSBT
// carries the inputs' and the change's BIP 32 derivations (and taproot
// internal keys), as Core's FillPSBT with bip32derivs=true before signing.
func TestSendLockedWallet(t *testing.T) {
	b := fundedNode(t)
	if _, e := b.call(t, "encryptwallet", `["pw"]`); e != nil {
		t.Fatalf("encryptwallet: %+v", e)
	}
	const dest = "bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd"
	for _, c := range []struct{ method, params string }{
		{"send", fmt.Sprintf(`[{%q: 1.5}, null, "unset", 3]`, dest)},
		{"send", fmt.Sprintf(`[{%q: 0.1}, null, "unset", 3, {"change_type": "bech32m", "add_to_wallet": false}]`, dest)},
		{"send", fmt.Sprintf(`[{%q: 0.1}, null, "unset", 3, {"psbt": true}]`, dest)},
		{"sendall", fmt.Sprintf(`[[%q], null, "unset", 3]`, dest)},
	} {
		r, p := b.send(t, c.method, c.params)
		if r.Complete || r.TxID != nil || r.Hex != nil || p == nil {
			t.Fatalf("%s %s locked: %+v", c.method, c.params, r)
		}
		for i := range p.Inputs {
			in := &p.Inputs[i]
			if in.IsFinalized() || len(in.PartialSigs) > 0 || in.TapKeySig != nil {
				t.Fatalf("%s: input %d signed on a locked wallet", c.method, i)
			}
			if !inputDerivs(in) {
				t.Fatalf("%s %s: input %d has no derivation", c.method, c.params, i)
			}
		}
		if want := len(p.Outputs) - 1; walletOutputs(p) != want {
			t.Fatalf("%s %s: %d outputs with derivations, want %d (the change)", c.method, c.params, walletOutputs(p), want)
		}
	}
	if n := b.sendEntries(t); n != 0 {
		t.Fatalf("locked sends recorded %d send entries", n)
	}

	// Unlocked, a PSBT asked for is complete: its inputs are final (their
	// derivations dropped as finalizing does) and the change keeps its
	// derivation; the send then goes into the wallet.
	if _, e := b.call(t, "walletpassphrase", `["pw", 100]`); e != nil {
		t.Fatalf("walletpassphrase: %+v", e)
	}
	r, p := b.send(t, "send", fmt.Sprintf(`[{%q: 0.1}, null, "unset", 3, {"psbt": true, "change_type": "bech32m"}]`, dest))
	if !r.Complete || r.TxID == nil || r.Hex == nil || p == nil {
		t.Fatalf("send psbt unlocked: %+v", r)
	}
	for i := range p.Inputs {
		if !p.Inputs[i].IsFinalized() || inputDerivs(&p.Inputs[i]) {
			t.Fatalf("input %d of a complete send: final %v", i, p.Inputs[i].IsFinalized())
		}
	}
	if walletOutputs(p) != 1 {
		t.Fatalf("complete send: %d outputs with derivations", walletOutputs(p))
	}
	r, _ = b.send(t, "send", fmt.Sprintf(`[{%q: 0.1}, null, "unset", 3]`, dest))
	if !r.Complete || r.TxID == nil || r.PSBT != nil || r.Hex != nil {
		t.Fatalf("send unlocked: %+v", r)
	}

	// walletcreatefundedpsbt (bip32derivs defaults to true) and
	// psbtbumpfee fill derivations too; bip32derivs false leaves them out.
	checkPSBT := func(what string, res json.RawMessage, want bool) {
		t.Helper()
		var reply struct {
			PSBT string `json:"psbt"`
		}
		json.Unmarshal(res, &reply)
		p, err := psbt.DecodeBase64(reply.PSBT)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for i := range p.Inputs {
			in := &p.Inputs[i]
			if got := len(in.BIP32Derivs)+len(in.TapBIP32Derivs) > 0; got != want || (want && !inputDerivs(in)) {
				t.Fatalf("%s: input %d derivations %v, want %v", what, i, got, want)
			}
		}
		if got := walletOutputs(p); (got == 1) != want {
			t.Fatalf("%s: %d outputs with derivations", what, got)
		}
	}
	for _, c := range []struct {
		params string
		want   bool
	}{
		{fmt.Sprintf(`[[], [{%q: 0.1}]]`, dest), true},
		{fmt.Sprintf(`[[], [{%q: 0.1}], 0, {"change_type": "bech32m"}]`, dest), true},
		{fmt.Sprintf(`[[], [{%q: 0.1}], 0, {}, false]`, dest), false},
	} {
		res, e := b.call(t, "walletcreatefundedpsbt", c.params)
		if e != nil {
			t.Fatalf("walletcreatefundedpsbt %s: %+v", c.params, e)
		}
		checkPSBT("walletcreatefundedpsbt "+c.params, res, c.want)
	}
	res, e := b.call(t, "psbtbumpfee", fmt.Sprintf(`[%q]`, *r.TxID))
	if e != nil {
		t.Fatalf("psbtbumpfee: %+v", e)
	}
	checkPSBT("psbtbumpfee", res, true)
}

// sendEntries counts listtransactions' send entries.
func (b *bumpNode) sendEntries(t *testing.T) int {
	t.Helper()
	res, e := b.call(t, "listtransactions", `["*", 100]`)
	if e != nil {
		t.Fatalf("listtransactions: %+v", e)
	}
	var entries []struct {
		Category string `json:"category"`
	}
	json.Unmarshal(res, &entries)
	n := 0
	for _, en := range entries {
		if en.Category == "send" {
			n++
		}
	}
	return n
}
