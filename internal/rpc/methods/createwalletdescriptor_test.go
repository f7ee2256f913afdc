package methods

import (
	"strings"
	"testing"
)

type walletDescsReply struct {
	Descs []string `json:"descs"`
}

// TestCreateWalletDescriptor follows Core's
// wallet_createwalletdescriptor.py: the errors of a blank wallet, the
// descriptors made from an imported key (equal to those Core's default
// wallet has for the same key), the internal option, several keys, an
// xprv given as hdkey, a replaced active descriptor and a locked wallet;
// then the new descriptors survive a reload, hand out addresses, and the
// blank flag is gone.
func TestCreateWalletDescriptor(t *testing.T) {
	for _, store := range corpusStores {
		t.Run(store, func(t *testing.T) {
			t.Parallel() // each store on its own node
			a := newAuditNode(t)
			if store != "sqlite" {
				a.n = newWalletNodeOn(t, a.dir, 0, storeOpener(t, a.dir, store))
				t.Cleanup(func() { a.n.mgr.Close() })
			}
			testCreateWalletDescriptor(t, a)
		})
	}
}

func testCreateWalletDescriptor(t *testing.T, a *auditNode) {
	def := wname("def")
	a.ok(nil, "createwallet", `["def"]`, "")
	k := a.hdkeys(def, `[{"private":true}]`)[0]
	xpub, xprv := k.Xpub, k.Xprv
	var wpkh []string
	for _, d := range a.descs(def, false) {
		if strings.HasPrefix(d.Desc, "wpkh(") {
			wpkh = append(wpkh, d.Desc)
		}
	}

	w := wname("blank")
	a.ok(nil, "createwallet", `["blank", false, true]`, "")
	a.fails(w, "createwalletdescriptor", `["bech32"]`, -5, "Unable to determine which HD key to use from active descriptors. Please specify with 'hdkey'")
	a.fails(w, "createwalletdescriptor", `{"type":"bech32","hdkey":"`+xpub+`"}`, -5, "Private key for "+xpub+" is not known")
	a.fails(w, "createwalletdescriptor", `["foo"]`, -5, "Unknown address type 'foo'")
	a.fails(w, "createwalletdescriptor", `["bech32", {"internal":"yes"}]`, -3, "JSON value of type string is not of expected type bool")
	a.fails(w, "createwalletdescriptor", `["bech32", {"hdkey":5}]`, -3, "JSON value of type number is not of expected type string")
	a.code(w, "createwalletdescriptor", `[]`, -1)
	a.code(w, "createwalletdescriptor", `[5]`, -3)

	a.ok(w, "importdescriptors", imp(el(cs("pkh("+xprv+"/44h/2h/0h/0/0/*)"), `"active":true`)), "")
	if n := len(a.hdkeys(w, "[]")); n != 1 {
		t.Fatalf("%d keys", n)
	}
	var got walletDescsReply
	mustResult(t, a.do(w, "createwalletdescriptor", `["bech32"]`), "createwalletdescriptor", &got)
	if strings.Join(got.Descs, " ") != strings.Join(wpkh, " ") {
		t.Fatalf("got %v, want %v", got.Descs, wpkh)
	}
	if n := len(a.hdkeys(w, "[]")); n != 1 {
		t.Fatalf("%d keys after", n)
	}
	a.fails(w, "createwalletdescriptor", `["bech32"]`, -4, "Descriptor already exists")

	// One side at a time, by named arguments.
	before := a.descs(w, true)
	a.ok(w, "createwalletdescriptor", `{"type":"bech32m","internal":false}`, "")
	added := newDescs(before, a.descs(w, true))
	if len(added) != 1 || added[0].Desc != cs("tr("+xprv+"/86h/1h/0h/0/*)") || !added[0].Active || added[0].Internal == nil || *added[0].Internal {
		t.Fatalf("external: %+v", added)
	}
	before = a.descs(w, true)
	a.ok(w, "createwalletdescriptor", `["bech32m", {"internal":true}]`, "")
	added = newDescs(before, a.descs(w, true))
	if len(added) != 1 || added[0].Desc != cs("tr("+xprv+"/86h/1h/0h/1/*)") || !added[0].Active || added[0].Internal == nil || !*added[0].Internal {
		t.Fatalf("internal: %+v", added)
	}

	// The descriptors are stored: they survive a reload, hand out
	// addresses, and the wallet is no longer blank.
	a.ok(nil, "unloadwallet", `["blank"]`, "")
	a.ok(nil, "loadwallet", `["blank"]`, "")
	if n := len(a.descs(w, false)); n != 5 {
		t.Fatalf("%d descriptors after reload", n)
	}
	var addr string
	mustResult(t, a.do(w, "getnewaddress", `["", "bech32m"]`), "getnewaddress", &addr)
	var info struct {
		Desc string `json:"desc"`
	}
	mustResult(t, a.do(w, "getaddressinfo", `["`+addr+`"]`), "getaddressinfo", &info)
	if !strings.HasPrefix(info.Desc, "tr([") {
		t.Errorf("address %s: %s", addr, info.Desc)
	}
	mustResult(t, a.do(w, "getrawchangeaddress", `["bech32"]`), "getrawchangeaddress", &addr)
	var winfo struct {
		Flags []string `json:"flags"`
	}
	mustResult(t, a.do(w, "getwalletinfo", `[]`), "getwalletinfo", &winfo)
	for _, f := range winfo.Flags {
		if f == "blank" {
			t.Errorf("still blank: %v", winfo.Flags)
		}
	}

	// Several keys among the active descriptors.
	m := wname("multi")
	a.ok(nil, "createwallet", `["multi"]`, "")
	own := a.hdkeys(m, "[]")[0].Xpub
	a.ok(m, "importdescriptors", imp(el(cs("wpkh("+xprv+"/0/0/*)"), `"active":true`)), "")
	if n := len(a.hdkeys(m, "[]")); n != 2 {
		t.Fatalf("%d keys", n)
	}
	a.fails(m, "createwalletdescriptor", `["bech32"]`, -5, "Unable to determine which HD key to use from active descriptors. Please specify with 'hdkey'")
	a.fails(m, "createwalletdescriptor", `{"type":"bech32m","hdkey":"`+own+`"}`, -4, "Descriptor already exists")
	a.fails(m, "createwalletdescriptor", `{"type":"bech32m","hdkey":"`+xprv+`"}`, -5, "Unable to parse HD key. Please provide a valid xpub")
	a.fails(m, "createwalletdescriptor", `{"type":"bech32m","hdkey":"xpub"}`, -5, "Unable to parse HD key. Please provide a valid xpub")
	// The other key replaces the active tr() descriptors.
	mustResult(t, a.do(m, "createwalletdescriptor", `{"type":"bech32m","hdkey":"`+xpub+`"}`), "replace", &got)
	if len(got.Descs) != 2 {
		t.Fatalf("replace: %v", got.Descs)
	}
	newTr := map[string]bool{got.Descs[0]: true, got.Descs[1]: true}
	for _, d := range a.descs(m, false) {
		if strings.HasPrefix(d.Desc, "tr(") && d.Active != newTr[d.Desc] {
			t.Errorf("tr descriptor %s active %v", d.Desc, d.Active)
		}
	}

	// A locked wallet, then unlocked.
	e := wname("enc")
	a.ok(nil, "createwallet", `{"wallet_name":"enc","blank":true,"passphrase":"pass"}`, "")
	a.ok(e, "walletpassphrase", `["pass", 100]`, "null")
	a.ok(e, "importdescriptors", imp(el(cs("wpkh("+xprv+"/0/0/*)"), `"active":true`)), "")
	a.ok(e, "walletlock", `[]`, "null")
	if n := len(a.hdkeys(e, "[]")); n != 1 {
		t.Fatalf("%d keys", n)
	}
	a.fails(e, "createwalletdescriptor", `{"type":"bech32m"}`, -13, "Error: Please enter the wallet passphrase with walletpassphrase first.")
	a.fails(e, "createwalletdescriptor", `["bech32m", {"hdkey":5}]`, -13, "Error: Please enter the wallet passphrase with walletpassphrase first.")
	a.ok(e, "walletpassphrase", `["pass", 100]`, "null")
	a.ok(e, "createwalletdescriptor", `{"type":"bech32m"}`, "")
	a.ok(e, "walletlock", `[]`, "null")
	a.ok(nil, "unloadwallet", `["enc"]`, "")
	a.ok(nil, "loadwallet", `["enc"]`, "")
	a.ok(e, "walletpassphrase", `["pass", 100]`, "null")
	found := 0
	for _, d := range a.descs(e, true) {
		if strings.HasPrefix(d.Desc, "tr("+xprv+"/86h/1h/0h/") && d.Active {
			found++
		}
	}
	if found != 2 {
		t.Errorf("%d tr() descriptors with the key after reload", found)
	}

	// A watch-only wallet holds no private key.
	wo := wname("wo")
	a.ok(nil, "createwallet", `["wo", true, true]`, "")
	a.fails(wo, "createwalletdescriptor", `["bech32"]`, -5, "Unable to determine which HD key to use from active descriptors. Please specify with 'hdkey'")
	a.ok(wo, "importdescriptors", imp(el(cs("wpkh("+xpub+"/0/*)"), `"active":true`)), "")
	a.fails(wo, "createwalletdescriptor", `["bech32m"]`, -5, "Private key for "+xpub+" is not known")
}

// newDescs returns the descriptors of after that before lacks.
func newDescs(before, after []listedDesc) []listedDesc {
	had := map[string]bool{}
	for _, d := range before {
		had[d.Desc] = true
	}
	var out []listedDesc
	for _, d := range after {
		if !had[d.Desc] {
			out = append(out, d)
		}
	}
	return out
}
