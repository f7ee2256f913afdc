package methods

import (
	"encoding/json"
	"testing"
)

// TestWalletRescanSlotRefusals holds a wallet's rescan slot as an import or
// rescanblockchain does and checks Core's refusals of the calls that would
// lock, re-encrypt or unload the wallet meanwhile, in Core's order (the
// encryption state is checked first), and that they work again once the
// slot is free.
func TestWalletRescanSlotRefusals(t *testing.T) {
	n := newWalletNode(t, t.TempDir())
	defer n.mgr.Close()
	call := func(wallet, method, params string) stepReply {
		t.Helper()
		return n.call(t, walletPath(&wallet), method, json.RawMessage(params))
	}
	wantErr := func(r stepReply, code int, msg string) {
		t.Helper()
		if r.Error == nil || r.Error.Code != code || r.Error.Message != msg {
			t.Fatalf("got %s %+v, want error %d %q", r.Result, r.Error, code, msg)
		}
	}
	for _, c := range []string{`["enc", false, true, "pw"]`, `["plain", false, true]`, `["watch", true, true]`} {
		if r := n.call(t, "/", "createwallet", json.RawMessage(c)); r.Error != nil {
			t.Fatal(r.Error.Message)
		}
	}
	hold := func(name string, withPassphrase bool) func() {
		t.Helper()
		w, ok := n.mgr.Get(name)
		if !ok {
			t.Fatalf("wallet %s not loaded", name)
		}
		release, err := reserveRescan(&Deps{}, w, withPassphrase)
		if err != nil {
			t.Fatal(err)
		}
		return release
	}
	const busy = "Wallet is currently rescanning. Abort existing rescan or wait."
	scanMsg := func(action string) string {
		return "Error: the wallet is currently being used to rescan the blockchain for related transactions. " +
			"Please call `abortrescan` before " + action + "."
	}

	release := hold("enc", true)
	if r := call("enc", "walletpassphrase", `["pw", 100]`); r.Error != nil {
		t.Fatalf("walletpassphrase during a rescan: %+v", r.Error)
	}
	wantErr(call("enc", "walletlock", `[]`), -4, scanMsg("locking the wallet"))
	wantErr(call("enc", "walletpassphrasechange", `["pw", "new"]`), -4, scanMsg("changing the passphrase"))
	wantErr(call("enc", "encryptwallet", `["x"]`), -15, "Error: running with an encrypted wallet, but encryptwallet was called.")
	wantErr(call("enc", "importdescriptors", `[[]]`), -4, busy)
	wantErr(call("enc", "unloadwallet", `[]`), -4, busy)
	release()
	if r := call("enc", "walletlock", `[]`); r.Error != nil {
		t.Fatalf("walletlock after the rescan: %+v", r.Error)
	}

	release = hold("plain", true)
	wantErr(call("plain", "walletlock", `[]`), -15, "Error: running with an unencrypted wallet, but walletlock was called.")
	wantErr(call("plain", "walletpassphrasechange", `["a", "b"]`), -15,
		"Error: running with an unencrypted wallet, but walletpassphrasechange was called.")
	wantErr(call("plain", "encryptwallet", `["x"]`), -4, scanMsg("encrypting the wallet"))
	release()

	release = hold("watch", true)
	wantErr(call("watch", "encryptwallet", `["x"]`), -16, "Error: wallet does not contain private keys, nothing to encrypt.")
	release()

	// A rescan without the passphrase (one the node started by itself)
	// leaves locking alone but still keeps the wallet loaded.
	release = hold("plain", false)
	wantErr(call("plain", "unloadwallet", `[]`), -4, busy)
	if r := call("plain", "encryptwallet", `["pw"]`); r.Error != nil {
		t.Fatalf("encryptwallet during a rescan without passphrase: %+v", r.Error)
	}
	release()
	if r := call("plain", "unloadwallet", `[]`); r.Error != nil {
		t.Fatalf("unloadwallet after the rescan: %+v", r.Error)
	}
}
