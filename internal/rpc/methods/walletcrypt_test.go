package methods

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWalletEncryptionRPC drives the passphrase methods over the RPC path
// and checks Core's codes, messages and reply shapes.
func TestWalletEncryptionRPC(t *testing.T) {
	dir := t.TempDir()
	n := newWalletNode(t, dir)
	defer n.mgr.Close()
	call := func(wallet, method, params string) stepReply {
		t.Helper()
		name := wallet
		return n.call(t, walletPath(&name), method, json.RawMessage(params))
	}
	wantErr := func(r stepReply, code int, msg string) {
		t.Helper()
		if r.Error == nil || r.Error.Code != code || (msg != "" && r.Error.Message != msg) {
			t.Fatalf("got %s %+v, want error %d %q", r.Result, r.Error, code, msg)
		}
	}
	wantResult := func(r stepReply, want string) {
		t.Helper()
		if r.Error != nil || string(r.Result) != want {
			t.Fatalf("got %s %+v, want result %s", r.Result, r.Error, want)
		}
	}

	if r := n.call(t, "/", "createwallet", json.RawMessage(`["plain", false, true]`)); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	for _, c := range []struct{ method, params, msg string }{
		{"walletpassphrase", `["pw", 10]`, "Error: running with an unencrypted wallet, but walletpassphrase was called."},
		{"walletlock", `[]`, "Error: running with an unencrypted wallet, but walletlock was called."},
		{"walletpassphrasechange", `["a", "b"]`, "Error: running with an unencrypted wallet, but walletpassphrasechange was called."},
	} {
		wantErr(call("plain", c.method, c.params), -15, c.msg)
	}
	// The top-level type check comes first.
	wantErr(call("plain", "walletpassphrase", `["pw", "10"]`), -3, "")
	wantErr(call("plain", "encryptwallet", `[""]`), -8, "passphrase cannot be empty")
	info := call("plain", "getwalletinfo", `[]`)
	if strings.Contains(string(info.Result), "unlocked_until") {
		t.Fatalf("plain wallet shows unlocked_until: %s", info.Result)
	}
	wantResult(call("plain", "encryptwallet", `["pw"]`),
		`"wallet encrypted; The keypool has been flushed and a new HD seed was generated. You need to make a new backup with the backupwallet RPC."`)
	wantErr(call("plain", "encryptwallet", `["pw"]`), -15, "Error: running with an encrypted wallet, but encryptwallet was called.")

	wantErr(call("plain", "walletpassphrase", `["nope", 10]`), -14, "Error: The wallet passphrase entered was incorrect.")
	wantErr(call("plain", "walletpassphrase", `["pw", -1]`), -8, "Timeout cannot be negative.")
	wantErr(call("plain", "walletpassphrase", `["", 10]`), -8, "passphrase cannot be empty")
	wantErr(call("plain", "listdescriptors", `[true]`), -13, "Error: Please enter the wallet passphrase with walletpassphrase first.")
	wantResult(call("plain", "walletpassphrase", `["pw", 100]`), "null")
	wantResult(call("plain", "listdescriptors", `[true]`), `{"wallet_name":"plain","descriptors":[]}`)

	// unlocked_until sits after keypoolsize_hd_internal, as in Core.
	info = call("plain", "getwalletinfo", `[]`)
	s := string(info.Result)
	i, j, k := strings.Index(s, `"keypoolsize_hd_internal"`), strings.Index(s, `"unlocked_until"`), strings.Index(s, `"paytxfee"`)
	if i < 0 || j < i || k < j {
		t.Fatalf("getwalletinfo field order: %s", s)
	}
	var parsed struct {
		UnlockedUntil int64 `json:"unlocked_until"`
	}
	if err := json.Unmarshal(info.Result, &parsed); err != nil || parsed.UnlockedUntil == 0 {
		t.Fatalf("unlocked_until of an unlocked wallet: %s", s)
	}
	wantErr(call("plain", "walletpassphrasechange", `["nope", "new"]`), -14, "Error: The wallet passphrase entered was incorrect.")
	wantErr(call("plain", "walletpassphrasechange", `["pw", ""]`), -8, "passphrase cannot be empty")
	wantResult(call("plain", "walletpassphrasechange", `["pw", "new"]`), "null")
	wantResult(call("plain", "walletlock", `[]`), "null")
	info = call("plain", "getwalletinfo", `[]`)
	if !strings.Contains(string(info.Result), `"unlocked_until":0,`) {
		t.Fatalf("locked wallet: %s", info.Result)
	}
	wantErr(call("plain", "importdescriptors", `[[]]`), -13, "Error: Please enter the wallet passphrase with walletpassphrase first.")
	wantResult(call("plain", "walletpassphrase", `["new", 10]`), "null")
	wantResult(call("plain", "importdescriptors", `[[]]`), "[]")

	if r := n.call(t, "/", "createwallet", json.RawMessage(`["watch", true, true]`)); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	wantErr(call("watch", "encryptwallet", `["pw"]`), -16, "Error: wallet does not contain private keys, nothing to encrypt.")
}
