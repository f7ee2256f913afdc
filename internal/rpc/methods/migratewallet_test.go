package methods

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// TestMigrateWallet: every descwallet wallet is a descriptor wallet, so
// migratewallet answers Core's errors: already a descriptor wallet (loaded
// or not, on either store), does not exist, the endpoint and parameter
// rules, Core's path rule, and a Berkeley DB file left to Core.
func TestMigrateWallet(t *testing.T) {
	for _, store := range corpusStores {
		t.Run(store, func(t *testing.T) {
			a := newAuditNode(t)
			if store != "sqlite" {
				a.n = newWalletNodeOn(t, a.dir, 0, storeOpener(t, a.dir, store))
				t.Cleanup(func() { a.n.mgr.Close() })
			}
			const already = "Error: This wallet is already a descriptor wallet"
			const missing = "Error: Wallet does not exist"
			w := wname("w")
			a.ok(nil, "createwallet", `["w"]`, "")
			a.ok(nil, "createwallet", `["u", true, true]`, "")
			a.ok(nil, "unloadwallet", `["u"]`, "")
			a.fails(w, "migratewallet", `[]`, -4, already)
			a.fails(w, "migratewallet", `["w"]`, -4, already)
			a.fails(w, "migratewallet", `["w", "pass"]`, -4, already)
			a.fails(nil, "migratewallet", `["w"]`, -4, already)
			a.fails(nil, "migratewallet", `{"wallet_name":"u"}`, -4, already)
			a.fails(nil, "migratewallet", `["notawallet"]`, -4, missing)
			a.fails(wname("notawallet"), "migratewallet", `[]`, -4, missing)
			a.fails(w, "migratewallet", `["someotherwallet"]`, -8, "The RPC endpoint wallet and the wallet name parameter specify different wallets")
			a.fails(nil, "migratewallet", `[]`, -8, "Either the RPC endpoint wallet or the wallet name parameter must be provided")
			a.fails(nil, "migratewallet", `[null, "pass"]`, -8, "Either the RPC endpoint wallet or the wallet name parameter must be provided")
			a.code(nil, "migratewallet", `[5]`, -3)
			a.code(nil, "migratewallet", `["w", 5]`, -3)
			a.code(nil, "migratewallet", `["w", "p", 1]`, -1)
		})
	}
}

// TestMigrateWalletPaths: Core's rules for what a wallet name may name in
// the wallets folder, on SQLite files.
func TestMigrateWalletPaths(t *testing.T) {
	a := newAuditNode(t)
	a.ok(nil, "createwallet", `["w"]`, "")
	wallets := filepath.Join(a.dir, "regtest", "wallets")
	write := func(name string, data []byte) {
		t.Helper()
		p := filepath.Join(wallets, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A plain file of the wallets folder, not Berkeley DB: Core finds no
	// legacy wallet in it.
	write("plain", []byte("not a wallet"))
	a.fails(nil, "migratewallet", `["plain"]`, -4, "Error: This wallet is already a descriptor wallet")
	// An empty folder.
	if err := os.Mkdir(filepath.Join(wallets, "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	a.fails(nil, "migratewallet", `["empty"]`, -4, "Error: This wallet is already a descriptor wallet")
	// A Berkeley DB B-tree file, in a folder and as a plain file.
	bdb := make([]byte, 4096)
	binary.LittleEndian.PutUint32(bdb[12:], 0x00053162)
	write("legacy/wallet.dat", bdb)
	write("legacy.dat", bdb)
	const legacy = "Error: This is a Berkeley DB (legacy) wallet file, which descwallet cannot read; migrate it with Bitcoin Core"
	a.fails(nil, "migratewallet", `["legacy"]`, -4, legacy)
	a.fails(nil, "migratewallet", `["legacy.dat"]`, -4, legacy)
	// A file below a folder, and a link to a file, name no wallet.
	write("sub/file", []byte("x"))
	if err := os.Symlink(filepath.Join(wallets, "plain"), filepath.Join(wallets, "link")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sub/file", "link"} {
		r := a.do(nil, "migratewallet", `["`+name+`"]`)
		want := "Invalid -wallet path '" + name + "'. -wallet path should point to a directory where wallet.dat and database/log.?????????? files can be stored, a location where such a directory could be created, or (for backwards compatibility) the name of an existing data file in -walletdir (\"" + wallets + "\")"
		if r.Error == nil || r.Error.Code != -4 || r.Error.Message != want {
			t.Errorf("%s: %+v", name, r.Error)
		}
	}
	// A link to a folder is the folder.
	if err := os.Symlink(filepath.Join(wallets, "legacy"), filepath.Join(wallets, "dirlink")); err != nil {
		t.Fatal(err)
	}
	a.fails(nil, "migratewallet", `["dirlink"]`, -4, legacy)
	a.fails(nil, "migratewallet", `["`+filepath.Join(wallets, "w")+`"]`, -4, "Error: This wallet is already a descriptor wallet")
}

// TestWalletDisplayAddress: with no external signer, Core's answers: -5
// for an address that does not decode, -1 for any valid one (the
// wallet's or not); and createwallet with external_signer answers as Core
// built with signer support and no -signer, making nothing.
func TestWalletDisplayAddress(t *testing.T) {
	a := newAuditNode(t)
	w := wname("w")
	a.fails(nil, "walletdisplayaddress", `["bcrt1qm90ugl4d48jv8n6e5t9ln6t9zlpm5th68x4f8g"]`, -18, "")
	a.ok(nil, "createwallet", `["w"]`, "")
	var own string
	mustResult(t, a.do(w, "getnewaddress", `[]`), "getnewaddress", &own)
	const noSPKM = "There is no ScriptPubKeyManager for this address"
	a.fails(w, "walletdisplayaddress", `["`+own+`"]`, -1, noSPKM)
	a.fails(w, "walletdisplayaddress", `["bcrt1qm90ugl4d48jv8n6e5t9ln6t9zlpm5th68x4f8g"]`, -1, noSPKM)
	a.fails(w, "walletdisplayaddress", `{"address":"`+own+`"}`, -1, noSPKM)
	a.fails(w, "walletdisplayaddress", `["bc1qm90ugl4d48jv8n6e5t9ln6t9zlpm5th68x4f8g"]`, -5, "Invalid address")
	a.fails(w, "walletdisplayaddress", `["nope"]`, -5, "Invalid address")
	a.code(w, "walletdisplayaddress", `[]`, -1)
	a.code(w, "walletdisplayaddress", `[1]`, -3)

	a.fails(nil, "createwallet", `{"wallet_name":"hw","disable_private_keys":true,"external_signer":true}`, -1, "restart bitcoind with -signer=<cmd>")
	// enumeratesigners: Core's answer without -signer, on either path.
	a.fails(nil, "enumeratesigners", `[]`, -1, "Error: restart bitcoind with -signer=<cmd>")
	a.fails(w, "enumeratesigners", `{}`, -1, "Error: restart bitcoind with -signer=<cmd>")
	a.code(nil, "enumeratesigners", `[1]`, -1)
	a.fails(nil, "createwallet", `{"wallet_name":"hw","external_signer":true}`, -4, "Private keys must be disabled when using an external signer")
	a.fails(nil, "createwallet", `{"wallet_name":"hw","disable_private_keys":true,"passphrase":"p","external_signer":true}`, -4,
		"Passphrase provided but private keys are disabled. A passphrase is only used to encrypt private keys, so cannot be used for wallets with private keys disabled.")
	a.fails(nil, "createwallet", `{"wallet_name":"w","disable_private_keys":true,"external_signer":true}`, -4,
		"Wallet file verification failed. Failed to create database path '"+filepath.Join(a.dir, "regtest", "wallets", "w")+"'. Database already exists.")
	// Core v30 shows each wallet's warnings, none here.
	a.ok(nil, "listwalletdir", `[]`, `{"wallets":[{"name":"w","warnings":[]}]}`)
	a.ok(nil, "createwallet", `{"wallet_name":"hw","disable_private_keys":true}`, "")
}
