package methods

import (
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/wire/v2"
)

// TestSignInputErrorsInCoreOrder: a per-input error is the one Core's
// interpreter meets first (issue 17, difference 6). CHECKMULTISIG checks
// the key paired with an empty signature, so an uncompressed key in a
// witness script is reported; a segwit input's scriptSig runs before the
// witness rules, so a non-minimal push in it is reported.
func TestSignInputErrorsInCoreOrder(t *testing.T) {
	s := auditSignServer(t)
	keys, _, _ := auditKeySet(t)
	pub := func(n string) []byte { return mustHex(t, keys[n].PubKey) }
	wif := func(n string) string { return keys[n].WIF }
	const (
		msgWitPubKeyType = "Using non-compressed keys in segwit"
		msgMinimalData   = "Data push larger than necessary"
		msgMalleated     = "Witness requires empty scriptSig"
		msgMalleatedP2SH = "Witness requires only-redeemscript scriptSig"
	)
	msCU := auditMulti(1, pub("k01"), pub("u01"))
	msUC := auditMulti(1, pub("u01"), pub("k01"))
	ms23U := auditMulti(2, pub("u01"), pub("k02"), pub("k03"))
	wpkh := auditP2WPKH(pub("k09"))
	wsExtra := func(b []byte) string { return `"witnessScript":"` + auditHex(b) + `","amount":1` }
	rsExtra := func(b []byte) string { return `"redeemScript":"` + auditHex(b) + `","amount":1` }
	nonMinimalWPKH := "4c" + auditPush(wpkh)[0:2] + auditHex(wpkh) // OP_PUSHDATA1 where a direct push does

	cases := []struct {
		name         string
		spk          []byte
		extra        string
		keys         []string
		scriptSigIn  string // the unsigned transaction's scriptSig
		scriptSigOut string
		witness      []string
		err          string
	}{
		// The repro: the uncompressed key's WIF given, which Core does not
		// sign with in segwit; the loop meets that key with an empty
		// signature.
		{name: "p2wsh-1of2-uncompressed-key-given", spk: auditP2WSHOf(msCU), extra: wsExtra(msCU), keys: []string{wif("u01")},
			witness: []string{"", "", auditHex(msCU)}, err: msgWitPubKeyType},
		{name: "p2wsh-1of2-uncompressed-first", spk: auditP2WSHOf(msUC), extra: wsExtra(msUC),
			witness: []string{"", "", auditHex(msUC)}, err: msgWitPubKeyType},
		{name: "p2sh-p2wsh-1of2-uncompressed", spk: auditP2SHOf(auditP2WSHOf(msCU)), extra: wsExtra(msCU),
			scriptSigOut: auditPush(auditP2WSHOf(msCU)), witness: []string{"", "", auditHex(msCU)}, err: msgWitPubKeyType},
		// Too few stack items for the loop: the stack error comes first.
		{name: "p2wsh-2of3-uncompressed-short-stack", spk: auditP2WSHOf(ms23U), extra: wsExtra(ms23U),
			witness: []string{"", "", auditHex(ms23U)}, err: msgStack},
		// A scriptSig on a native segwit input: its pushes are checked
		// before the witness rules.
		{name: "p2wpkh-non-minimal-scriptsig", spk: wpkh, extra: `"amount":1`, scriptSigIn: "4c03aabbcc",
			scriptSigOut: "4c03aabbcc", err: msgMinimalData},
		{name: "p2wpkh-minimal-scriptsig", spk: wpkh, extra: `"amount":1`, scriptSigIn: "03aabbcc",
			scriptSigOut: "03aabbcc", err: msgMalleated},
		{name: "p2sh-p2wpkh-non-minimal-redeem-push", spk: auditP2SHOf(wpkh), extra: rsExtra(wpkh), scriptSigIn: nonMinimalWPKH,
			scriptSigOut: nonMinimalWPKH, err: msgMinimalData},
		{name: "p2sh-p2wpkh-extra-push", spk: auditP2SHOf(wpkh), extra: rsExtra(wpkh), scriptSigIn: "51" + auditPush(wpkh),
			scriptSigOut: "51" + auditPush(wpkh), err: msgMalleatedP2SH},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			op := auditOutPoint(c.name, 0)
			tx := auditTxFor(t, []wire.OutPoint{op}, 0xfffffffd)
			ks, _ := json.Marshal(c.keys)
			if c.keys == nil {
				ks = []byte(`[]`)
			}
			params := []string{aq(auditTxHex(tx)), string(ks), "[" + auditPrevFor(op, c.spk, "", c.extra) + "]"}
			if c.scriptSigIn != "" {
				tx.TxIn[0].SignatureScript = mustHex(t, c.scriptSigIn)
				tx.TxOut = nil
				params = []string{aq(auditTxHex(tx)), string(ks), params[2], aq("SINGLE")}
			}
			r := auditOK(t, s, aParams(params...))
			if r.Complete || len(r.Errors) != 1 {
				t.Fatalf("got %+v", r)
			}
			e := r.Errors[0]
			w := c.witness
			if w == nil {
				w = []string{}
			}
			if e.Error != c.err || e.ScriptSig != c.scriptSigOut || !equalStrings(e.Witness, w) {
				t.Fatalf("entry %+v\nwant error %q scriptSig %q witness %q", e, c.err, c.scriptSigOut, w)
			}
		})
	}
}
