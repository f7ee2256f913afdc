package methods

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWalletSignLocked: an encrypted wallet refuses signmessage,
// signrawtransactionwithwallet and signing walletprocesspsbt with Core's -13 while locked, and signs
// once unlocked; the message signature verifies with verifymessage.
func TestWalletSignLocked(t *testing.T) {
	dir := t.TempDir()
	n := newSpendNode(t, dir)
	defer n.mgr.Close()
	must := func(path, method, params string) json.RawMessage {
		t.Helper()
		r := n.call(t, path, method, json.RawMessage(params))
		if r.Error != nil {
			t.Fatalf("%s %s: %d %s", method, params, r.Error.Code, r.Error.Message)
		}
		return r.Result
	}
	must("/", "createwallet", `["w", false, false, "secret"]`)
	var addr string
	if err := json.Unmarshal(must("/wallet/w", "getnewaddress", `["", "legacy"]`), &addr); err != nil {
		t.Fatal(err)
	}
	msgParams := `["` + addr + `", "hello"]`
	// A transaction with one input; the lock is checked before its coins
	// are looked for.
	rawTx := "0200000001" + strings.Repeat("11", 32) + "0000000000ffffffff" +
		"0100e1f505000000001976a914b67c8daa5ae4121c21d6340fda157835896ab12688ac00000000"
	var emptyPSBT string
	if err := json.Unmarshal(must("/", "converttopsbt", `["`+rawTx+`"]`), &emptyPSBT); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ method, params string }{
		{"signmessage", msgParams},
		{"signrawtransactionwithwallet", `["` + rawTx + `"]`},
		{"walletprocesspsbt", `["` + emptyPSBT + `"]`},
	} {
		r := n.call(t, "/wallet/w", c.method, json.RawMessage(c.params))
		if r.Error == nil || r.Error.Code != -13 ||
			r.Error.Message != "Error: Please enter the wallet passphrase with walletpassphrase first." {
			t.Fatalf("%s on a locked wallet: %+v %s, want -13", c.method, r.Error, r.Result)
		}
	}
	// Filling a PSBT without signing needs no passphrase.
	must("/wallet/w", "walletprocesspsbt", `["`+emptyPSBT+`", false]`)
	must("/wallet/w", "walletpassphrase", `["secret", 60]`)
	var sig string
	if err := json.Unmarshal(must("/wallet/w", "signmessage", msgParams), &sig); err != nil {
		t.Fatal(err)
	}
	var ok bool
	if err := json.Unmarshal(must("/", "verifymessage", `["`+addr+`", "`+sig+`", "hello"]`), &ok); err != nil || !ok {
		t.Fatalf("verifymessage of the wallet's signature: %v %v", ok, err)
	}
	must("/wallet/w", "walletlock", `[]`)
}
