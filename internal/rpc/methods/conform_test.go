package methods

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/script"
)

// objectKeys returns the keys of a JSON object in the order they appear.
func objectKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestListLabelsUnknownPurpose: Core refuses a purpose it does not know
// with -8 (issue 17, difference 1); "" means no filter.
func TestListLabelsUnknownPurpose(t *testing.T) {
	a := newAuditNode(t)
	w := wname("w")
	a.ok(nil, "createwallet", `["w", false, true]`, `{"name":"w"}`)
	a.fails(w, "listlabels", `["bogus"]`, -8, "Invalid 'purpose' argument, must be a known purpose string, typically 'send', or 'receive'.")
	a.fails(w, "listlabels", `["change"]`, -8, "Invalid 'purpose' argument, must be a known purpose string, typically 'send', or 'receive'.")
	a.ok(w, "listlabels", `["receive"]`, `[]`)
	a.ok(w, "listlabels", `["send"]`, `[]`)
	a.ok(w, "listlabels", `["refund"]`, `[]`)
	a.ok(w, "listlabels", `[""]`, `[]`)
}

// TestGetAddressesByLabelOrder: the keys come in the order of Core's
// address book, a map keyed by CTxDestination: by destination type
// (P2PKH, P2SH, P2WSH, P2WPKH, P2TR), then by the destination's bytes, not
// sorted as strings (issue 17, difference 2).
func TestGetAddressesByLabelOrder(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	w := wname("w")
	a.ok(nil, "createwallet", `["w", false, true]`, `{"name":"w"}`)
	tprv := k.BIP32["t01"].TPRV
	var elems []string
	for _, d := range []string{"pkh(%s/44h/1h/0h/0/*)", "sh(wpkh(%s/49h/1h/0h/0/*))", "wpkh(%s/84h/1h/0h/0/*)", "tr(%s/86h/1h/0h/0/*)"} {
		elems = append(elems, el(cs(fmt.Sprintf(d, tprv)), `"active":true`, `"internal":false`))
	}
	a.ok(w, "importdescriptors", imp(elems...), "")
	// The repro: one address of each type.
	var got []string
	for _, typ := range []string{"bech32m", "bech32", "legacy", "p2sh-segwit"} {
		var addr string
		mustResult(t, a.do(w, "getnewaddress", `["", "`+typ+`"]`), "getnewaddress", &addr)
		got = append(got, addr)
	}
	r := a.do(w, "getaddressesbylabel", `[""]`)
	if r.Error != nil {
		t.Fatalf("getaddressesbylabel: %s", r.Error.Message)
	}
	want := []string{got[2], got[3], got[1], got[0]}
	if keys := objectKeys(t, r.Result); !equalStrings(keys, want) {
		t.Fatalf("keys %q, want Core's address book order %q", keys, want)
	}
	var entries map[string]struct {
		Purpose string `json:"purpose"`
	}
	if err := json.Unmarshal(r.Result, &entries); err != nil {
		t.Fatal(err)
	}
	for _, addr := range want {
		if entries[addr].Purpose != "receive" {
			t.Errorf("%s: purpose %q", addr, entries[addr].Purpose)
		}
	}

	// More of each type, a P2WSH and an address of someone else: check the
	// type order and, within a type, the destination's bytes.
	a.ok(w, "importdescriptors", imp(el(cs("wsh(pk("+k.WIF["k01"].WIF+"))"), `"label":"l"`)), `[{"success":true}]`)
	for _, typ := range []string{"bech32m", "bech32", "legacy", "p2sh-segwit", "bech32m", "bech32", "legacy", "p2sh-segwit"} {
		a.do(w, "getnewaddress", `["l", "`+typ+`"]`)
	}
	a.ok(w, "setlabel", `["mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn", "l"]`, "null")
	r = a.do(w, "getaddressesbylabel", `["l"]`)
	if r.Error != nil {
		t.Fatalf("getaddressesbylabel: %s", r.Error.Message)
	}
	keys := objectKeys(t, r.Result)
	if len(keys) != 10 {
		t.Fatalf("got %d addresses, want 10: %s", len(keys), r.Result)
	}
	rank := map[script.Class]int{script.PubKeyHash: 0, script.ScriptHash: 1, script.WitnessV0ScriptHash: 2, script.WitnessV0KeyHash: 3, script.WitnessV1Taproot: 4}
	var prevRank int
	var prevData []byte
	for i, addr := range keys {
		spk, err := address.Decode(addr, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		class, sol := script.Solve(spk)
		rk, ok := rank[class]
		if !ok {
			t.Fatalf("%s: class %s", addr, class)
		}
		if i > 0 && (rk < prevRank || rk == prevRank && bytes.Compare(sol[0], prevData) <= 0) {
			t.Errorf("%s (%s) listed after %x of rank %d: %q", addr, class, prevData, prevRank, keys)
		}
		prevRank, prevData = rk, sol[0]
	}
}

// TestCreateDefaultWalletTwice: the default wallet's folder is the wallets
// folder itself, written without a trailing separator (issue 17,
// difference 7).
func TestCreateDefaultWalletTwice(t *testing.T) {
	a := newAuditNode(t)
	a.ok(nil, "createwallet", `[""]`, `{"name":""}`)
	dir := filepath.Join(a.dir, "regtest", "wallets")
	a.fails(nil, "createwallet", `[""]`, -4, "Wallet file verification failed. Failed to create database path '"+dir+"'. Database already exists.")
}

// TestRestoreWalletExists: restorewallet onto a wallet that exists, loaded
// or not, or onto any folder of the wallet's name answers Core's -36 and
// leaves what is there alone (Core's wallet_backup.py,
// restore_wallet_existent_name).
func TestRestoreWalletExists(t *testing.T) {
	a := newAuditNode(t)
	wallets := filepath.Join(a.dir, "regtest", "wallets")
	exists := func(dir string) string {
		return "Failed to create database path '" + dir + "'. Database already exists."
	}
	bak, _ := json.Marshal(filepath.Join(a.dir, "res0.bak"))
	a.ok(nil, "createwallet", `["res0"]`, `{"name":"res0"}`)
	a.ok(wname("res0"), "backupwallet", `[`+string(bak)+`]`, `null`)
	a.fails(nil, "restorewallet", `["res0", `+string(bak)+`]`, -36, exists(filepath.Join(wallets, "res0")))
	a.ok(nil, "unloadwallet", `["res0"]`, `{}`)
	a.fails(nil, "restorewallet", `["res0", `+string(bak)+`]`, -36, exists(filepath.Join(wallets, "res0")))
	a.ok(nil, "loadwallet", `["res0"]`, `{"name":"res0"}`)

	// A folder without a wallet in it is refused too, and stays empty.
	empty := filepath.Join(wallets, "empty")
	if err := os.MkdirAll(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	a.fails(nil, "restorewallet", `["empty", `+string(bak)+`]`, -36, exists(empty))
	if entries, err := os.ReadDir(empty); err != nil || len(entries) != 0 {
		t.Errorf("the refused restore wrote into the folder: %v %v", entries, err)
	}
	// The default wallet's folder is the wallets folder itself.
	a.fails(nil, "restorewallet", `["", `+string(bak)+`]`, -36, exists(wallets))

	// A new name restores.
	a.ok(nil, "restorewallet", `["res1", `+string(bak)+`]`, `{"name":"res1"}`)
}

// TestAddressArgumentErrors: the calls that take an address answer Core's
// errors for one that does not decode and, for the message calls, one
// that is not P2PKH (the shared argument readers of labels.go,
// paydetect.go and the message calls).
func TestAddressArgumentErrors(t *testing.T) {
	a := newAuditNode(t)
	a.ok(nil, "createwallet", `["w"]`, `{"name":"w"}`)
	w := wname("w")
	var segwit string
	if err := json.Unmarshal(a.ok(w, "getnewaddress", `[]`, ""), &segwit); err != nil {
		t.Fatal(err)
	}
	a.fails(w, "setlabel", `["nope", "l"]`, -5, "Invalid Bitcoin address")
	a.fails(w, "getreceivedbyaddress", `["nope"]`, -5, "Invalid Bitcoin address")
	a.fails(w, "signmessage", `["nope", "m"]`, -5, "Invalid address")
	a.fails(w, "signmessage", `["`+segwit+`", "m"]`, -3, "Address does not refer to key")
	a.fails(nil, "verifymessage", `["nope", "c2ln", "m"]`, -5, "Invalid address")
	a.fails(nil, "verifymessage", `["`+segwit+`", "c2ln", "m"]`, -3, "Address does not refer to key")
	a.ok(w, "setlabel", `["`+segwit+`", "l"]`, `null`)
	a.ok(w, "getreceivedbyaddress", `["`+segwit+`"]`, `0`)
}

// TestMultipathKeepsHardenedSpelling: the branches of a multipath
// descriptor print the hardened marker as written, in the key's path, its
// hardened wildcard and an origin next to it (issue 17, difference 3).
func TestMultipathKeepsHardenedSpelling(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	tpub := k.BIP32["t01"].TPUB
	fp := k.BIP32["t01"].Fingerprint
	for _, c := range []struct{ in, first, second string }{
		{"wpkh(" + tpub + "/<0';1'>/*)", "wpkh(" + tpub + "/0'/*)", "wpkh(" + tpub + "/1'/*)"},
		{"wpkh(" + tpub + "/<0;1>/*')", "wpkh(" + tpub + "/0/*')", "wpkh(" + tpub + "/1/*')"},
		{"wpkh([" + fp + "/44'/1']" + tpub + "/<0;1>/*)", "wpkh([" + fp + "/44'/1']" + tpub + "/0/*)", "wpkh([" + fp + "/44'/1']" + tpub + "/1/*)"},
		{"wpkh([" + fp + "/44h/1']" + tpub + "/<0;1h>/*)", "wpkh([" + fp + "/44h/1h]" + tpub + "/0/*)", "wpkh([" + fp + "/44h/1h]" + tpub + "/1h/*)"},
		{"wpkh(" + tpub + "/<0h;1h>/*)", "wpkh(" + tpub + "/0h/*)", "wpkh(" + tpub + "/1h/*)"},
	} {
		in, _ := json.Marshal(c.in)
		r := a.do(nil, "getdescriptorinfo", "["+string(in)+"]")
		if r.Error != nil {
			t.Errorf("%s: %s", c.in, r.Error.Message)
			continue
		}
		var got struct {
			Descriptor string   `json:"descriptor"`
			Expansion  []string `json:"multipath_expansion"`
		}
		if err := json.Unmarshal(r.Result, &got); err != nil {
			t.Fatal(err)
		}
		want := []string{cs(c.first), cs(c.second)}
		if got.Descriptor != want[0] || !equalStrings(got.Expansion, want) {
			t.Errorf("%s:\n got %s %q\nwant %s %q", c.in, got.Descriptor, got.Expansion, want[0], want)
		}
	}
}

// TestImportXpubDerivedFromXprv: Core looks private keys up by key id, so a
// tpub that is a child of a tprv of the same descriptor counts as known and
// the import has no "Not all private keys provided" warning (issue 17,
// difference 4). An unrelated tpub still gets the warning.
func TestImportXpubDerivedFromXprv(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	w := wname("w")
	a.ok(nil, "createwallet", `["w", false, true]`, `{"name":"w"}`)
	tprv := k.BIP32["t01"].TPRV
	root, err := hdkeychain.NewKeyFromString(tprv)
	if err != nil {
		t.Fatal(err)
	}
	child := root
	for _, i := range []uint32{48, 1, 0} {
		if child, err = child.Derive(hdkeychain.HardenedKeyStart + i); err != nil {
			t.Fatal(err)
		}
	}
	tpub, err := child.Neuter()
	if err != nil {
		t.Fatal(err)
	}
	fp := k.BIP32["t01"].Fingerprint
	d := cs("wsh(multi(1," + tprv + "/48h/1h/0h/1/*,[" + fp + "/48h/1h/0h]" + tpub.String() + "/1/*))")
	a.ok(w, "importdescriptors", imp(el(d, `"range":[0,5]`)), `[{"success":true}]`)

	other := cs("wsh(multi(1," + tprv + "/48h/1h/0h/2/*,[" + k.BIP32["t02"].Fingerprint + "/48h/1h/0h]" + k.BIP32["t02"].TPUB + "/1/*))")
	a.ok(w, "importdescriptors", imp(el(other, `"range":[0,5]`)), "["+warnResult(msgNotAllKeys)+"]")
}

// TestMiniscriptOverP2WSHSizeLimit pins Core's answers on either side of
// the P2WSH script size limit (issue 11, defect 13, third point). A
// thresh() of 97 keys (3589 bytes) parses and breaks the ops limit: Core
// names it ("needs witnesses that may exceed resource limits"). Past 3600
// bytes Core's miniscript parser (miniscript::internal::Parse) gives up
// without a node, so descriptor.cpp falls through to "A function is
// needed within P2WSH": that is Core's reply for thresh(150, 300 keys)
// too, and descwallet keeps it.
func TestMiniscriptOverP2WSHSizeLimit(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	tpub := k.BIP32["t01"].TPUB
	thresh := func(k, n int) (string, string) {
		subs := []string{"pk(" + tpub + "/0)"}
		for i := 1; i < n; i++ {
			subs = append(subs, fmt.Sprintf("s:pk(%s/%d)", tpub, i))
		}
		inner := fmt.Sprintf("thresh(%d,%s)", k, strings.Join(subs, ","))
		return "wsh(" + inner + ")", inner
	}
	d, inner := thresh(1, 97)
	b, _ := json.Marshal(d)
	a.fails(nil, "getdescriptorinfo", "["+string(b)+"]", -5, inner+" is not sane: needs witnesses that may exceed resource limits")
	for _, c := range [][2]int{{1, 98}, {150, 300}} {
		d, _ := thresh(c[0], c[1])
		b, _ := json.Marshal(d)
		a.fails(nil, "getdescriptorinfo", "["+string(b)+"]", -5, "A function is needed within P2WSH")
	}
}

// TestTaprootTreeInferredInCoreOrder: getaddressinfo's desc of a tr()
// output with a script tree lists the leaves as Core's InferTaprootTree
// rebuilds them from the spend data, not in the imported order (issue 11,
// defect 13): leaves are placed in the byte order of their scripts, each
// going left where its control block leaves the side open. Here the
// x-only keys sort k03 < k01 < k02.
func TestTaprootTreeInferredInCoreOrder(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	w := wname("w")
	a.ok(nil, "createwallet", `["w", true, true]`, `{"name":"w"}`)
	x := func(n string) string { return k.WIF[n].Pubkey[2:] }
	// pk() of a key as inferred: its x-only form with Core's origin for a
	// plain key (the fingerprint of its even-Y public key).
	pk := func(n string) string {
		h := script.Hash160(mustHex(t, "02"+x(n)))
		return fmt.Sprintf("pk([%x]%s)", h[:4], x(n))
	}
	ik := x("k04")
	ikh := script.Hash160(mustHex(t, "02"+ik))
	trOf := func(tree string) string { return fmt.Sprintf("tr([%x]%s,%s)", ikh[:4], ik, tree) }
	for _, c := range []struct{ in, want string }{
		{"{pk(" + x("k02") + "),pk(" + x("k01") + ")}", "{" + pk("k01") + "," + pk("k02") + "}"},
		{"{pk(" + x("k01") + "),{pk(" + x("k02") + "),pk(" + x("k03") + ")}}", "{{" + pk("k03") + "," + pk("k02") + "}," + pk("k01") + "}"},
		{"{{pk(" + x("k02") + "),pk(" + x("k01") + ")},pk(" + x("k03") + ")}", "{" + pk("k03") + ",{" + pk("k01") + "," + pk("k02") + "}}"},
		// Two identical leaves share one control block.
		{"{pk(" + x("k02") + "),pk(" + x("k02") + ")}", "{" + pk("k02") + "," + pk("k02") + "}"},
	} {
		d := cs("tr(" + ik + "," + c.in + ")")
		a.ok(w, "importdescriptors", imp(el(d)), `[{"success":true}]`)
		var addrs []string
		mustResult(t, a.do(w, "deriveaddresses", `["`+d+`"]`), "deriveaddresses", &addrs)
		var info struct {
			Desc string `json:"desc"`
		}
		mustResult(t, a.do(w, "getaddressinfo", `["`+addrs[0]+`"]`), "getaddressinfo", &info)
		if want := cs(trOf(c.want)); info.Desc != want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, info.Desc, want)
		}
	}
}
