package methods

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testvec"
)

// auditKeys are the keys of core_rpc/wallet.json.
type auditKeys struct {
	WIF map[string]struct {
		WIF    string `json:"wif"`
		Pubkey string `json:"pubkey"`
	} `json:"wif"`
	BIP32 map[string]struct {
		TPRV        string `json:"tprv"`
		TPUB        string `json:"tpub"`
		Fingerprint string `json:"fingerprint"`
	} `json:"bip32"`
}

func loadAuditKeys(t *testing.T) auditKeys {
	t.Helper()
	var f struct {
		Keys auditKeys `json:"keys"`
	}
	testvec.Load(t, "core_rpc/wallet.json", &f)
	return f.Keys
}

// cs appends a descriptor's checksum.
func cs(s string) string { return descriptor.AddChecksum(s) }

// auditNode is a fresh in-process node for one audit test.
type auditNode struct {
	t   *testing.T
	n   *walletNode
	dir string
}

func newAuditNode(t *testing.T) *auditNode {
	t.Helper()
	dir := t.TempDir()
	n := newWalletNode(t, dir)
	t.Cleanup(func() { n.mgr.Close() })
	return &auditNode{t: t, n: n, dir: dir}
}

// do sends method with params (JSON text) to wallet (nil: "/") and returns
// the reply.
func (a *auditNode) do(wallet *string, method, params string) stepReply {
	a.t.Helper()
	return a.n.call(a.t, walletPath(wallet), method, json.RawMessage(params))
}

// ok checks that the call succeeds with exactly want (JSON text).
func (a *auditNode) ok(wallet *string, method, params, want string) json.RawMessage {
	a.t.Helper()
	r := a.do(wallet, method, params)
	if r.Error != nil {
		a.t.Errorf("%s %s: got error %d %q, want %s", method, params, r.Error.Code, r.Error.Message, want)
		return nil
	}
	if want != "" && !sameJSON(r.Result, []byte(want)) {
		a.t.Errorf("%s %s:\n got %s\nwant %s", method, params, r.Result, want)
	}
	return r.Result
}

// fails checks that the call fails with code and message.
func (a *auditNode) fails(wallet *string, method, params string, code int, msg string) {
	a.t.Helper()
	r := a.do(wallet, method, params)
	if r.Error == nil {
		a.t.Errorf("%s %s: got result %s, want error %d %q", method, params, r.Result, code, msg)
		return
	}
	if r.Error.Code != code || (msg != "" && r.Error.Message != msg) {
		a.t.Errorf("%s %s: got error %d %q, want %d %q", method, params, r.Error.Code, r.Error.Message, code, msg)
	}
}

// code checks only the error code of a failing call (help texts).
func (a *auditNode) code(wallet *string, method, params string, code int) {
	a.t.Helper()
	a.fails(wallet, method, params, code, "")
}

func wname(s string) *string { return &s }

// imp builds an importdescriptors params array from element objects.
func imp(elems ...string) string { return "[[" + strings.Join(elems, ",") + "]]" }

// el builds one request element with the fixed timestamp and extra fields
// (JSON members without braces).
func el(desc string, extra ...string) string {
	b, _ := json.Marshal(desc)
	parts := append([]string{`"desc":` + string(b), `"timestamp":1700000000`}, extra...)
	return "{" + strings.Join(parts, ",") + "}"
}

const (
	msgRangeDefault = "Range not given, using default keypool range"
	msgNotAllKeys   = "Not all private keys provided. Some wallet functionality may return unexpected errors"
	msgUnknownType  = "Unknown output type, cannot set descriptor to active."
	msgNoKeys       = "Error: This wallet has no available keys"
)

func warnResult(ws ...string) string {
	b, _ := json.Marshal(ws)
	return `{"success":true,"warnings":` + string(b) + `}`
}

// TestImportAuditWholeCall checks the whole-call errors of
// importdescriptors (spec e.1, e.2, e.3 exception list).
func TestImportAuditWholeCall(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	w := wname("w")
	a.ok(nil, "createwallet", `["w", true, true]`, `{"name":"w"}`)
	pk1, pk2 := k.WIF["k01"].Pubkey, k.WIF["k02"].Pubkey
	good := el(cs("pkh(" + pk1 + ")"))
	xpubR := cs("wpkh(" + k.BIP32["t01"].TPUB + "/0/*)")

	// Argument shape.
	a.fails(w, "importdescriptors", `[{}]`, -3, "Wrong type passed:\n{\n    \"Position 1 (requests)\": \"JSON value of type object is not of expected type array\"\n}")
	a.fails(w, "importdescriptors", `[null]`, -3, "Wrong type passed:\n{\n    \"Position 1 (requests)\": \"JSON value of type null is not of expected type array\"\n}")
	a.ok(w, "importdescriptors", `[[]]`, `[]`)
	a.code(w, "importdescriptors", `[]`, -1)
	a.code(w, "importdescriptors", `[[], true]`, -1)
	a.ok(w, "importdescriptors", `{"requests":[]}`, `[]`)
	a.fails(w, "importdescriptors", `{"requests":[],"rescan":false}`, -8, "Unknown named parameter rescan")

	// Timestamps.
	missing := "Missing required timestamp field for key"
	a.fails(w, "importdescriptors", `[[5]]`, -3, missing)
	a.fails(w, "importdescriptors", `[["wpkh()"]]`, -3, missing)
	a.fails(w, "importdescriptors", `[[null]]`, -3, missing)
	a.fails(w, "importdescriptors", `[[{"desc":"x"}]]`, -3, missing)
	for ts, typ := range map[string]string{`"NOW"`: "string", `""`: "string", `null`: "null", `true`: "bool",
		`{}`: "object", `[]`: "array"} {
		a.fails(w, "importdescriptors", `[[{"desc":"x","timestamp":`+ts+`}]]`, -3,
			`Expected number or "now" timestamp value for key. got type `+typ)
	}
	a.fails(w, "importdescriptors", `[[{"desc":"x","timestamp":1.5}]]`, -1, "JSON integer out of range")
	a.fails(w, "importdescriptors", `[[{"desc":"x","timestamp":1e+20}]]`, -1, "JSON integer out of range")
	// A timestamp error comes before the element's own checks.
	a.fails(w, "importdescriptors", `[[{"timestamp":"later"}]]`, -3, `Expected number or "now" timestamp value for key. got type string`)

	// Field type errors fail the whole call, in Core's reading order.
	a.fails(w, "importdescriptors", imp(`{"desc":5,"timestamp":1}`), -3, "JSON value of type number is not of expected type string")
	a.fails(w, "importdescriptors", imp(`{"desc":null,"timestamp":1}`), -3, "JSON value of type null is not of expected type string")
	a.fails(w, "importdescriptors", imp(el("nonsense", `"active":"yes"`)), -3, "JSON value of type string is not of expected type bool")
	a.fails(w, "importdescriptors", imp(el("nonsense", `"active":null`)), -3, "JSON value of type null is not of expected type bool")
	a.fails(w, "importdescriptors", imp(el("nonsense", `"label":7`)), -3, "JSON value of type number is not of expected type string")
	// active is read before the label.
	a.fails(w, "importdescriptors", imp(el(cs("pkh("+pk1+")"), `"label":"*"`, `"active":1`)), -3, "JSON value of type number is not of expected type bool")
	// internal is read after the parse: a parse error wins.
	a.ok(w, "importdescriptors", imp(el("pkh("+pk1+")", `"internal":1`)),
		`[{"success":false,"error":{"code":-5,"message":"Missing checksum"}}]`)
	a.fails(w, "importdescriptors", imp(el(cs("pkh("+pk1+")"), `"internal":1`)), -3, "JSON value of type number is not of expected type bool")
	a.fails(w, "importdescriptors", imp(el(cs("pkh("+pk1+")"), `"internal":null`)), -3, "JSON value of type null is not of expected type bool")
	// next_index is read only for ranged descriptors.
	a.ok(w, "importdescriptors", imp(el(cs("pkh("+pk2+")"), `"next_index":"3"`)), `[{"success":true}]`)
	a.ok(w, "importdescriptors", imp(el(cs("pkh("+pk2+")"), `"next_index":1.5`)), `[{"success":true}]`)
	a.fails(w, "importdescriptors", imp(el(xpubR, `"range":[0,1999]`, `"next_index":"3"`)), -3, "JSON value of type string is not of expected type number")
	a.fails(w, "importdescriptors", imp(el(xpubR, `"range":[0,1999]`, `"next_index":1.5`)), -1, "JSON integer out of range")
	// Fractional ranges fail the whole call, on ranged descriptors only.
	a.fails(w, "importdescriptors", imp(el(xpubR, `"range":1.5`)), -1, "JSON integer out of range")
	a.fails(w, "importdescriptors", imp(el(xpubR, `"range":[0,1.5]`)), -1, "JSON integer out of range")
	a.ok(w, "importdescriptors", imp(el(cs("pkh("+pk1+")"), `"range":1.5`)),
		`[{"success":false,"error":{"code":-8,"message":"Range should not be specified for an un-ranged descriptor"}}]`)
	a.ok(w, "importdescriptors", imp(el(xpubR, `"range":[1.5,"x"]`)),
		`[{"success":false,"error":{"code":-8,"message":"Range must be specified as end or as [begin,end]"}}]`)

	// A whole-call error keeps what came before it; label null is no label.
	a.fails(w, "importdescriptors", imp(good, `{"desc":"x"}`), -3, missing)
	a.ok(w, "importdescriptors", imp(el(cs("wpkh("+pk1+")"), `"label":null`)), `[{"success":true}]`)
	list := a.ok(w, "listdescriptors", `[]`, "")
	for _, d := range []string{cs("pkh(" + pk1 + ")"), cs("pkh(" + pk2 + ")"), cs("wpkh(" + pk1 + ")")} {
		if !strings.Contains(string(list), d) {
			t.Errorf("listdescriptors lacks %s: %s", d, list)
		}
	}
	if strings.Contains(string(list), "tpub") {
		t.Errorf("a failed whole call imported its ranged element: %s", list)
	}
}

// TestImportAuditRanges checks range parsing and next_index bounds (e.3
// step 5, e.6) and the top-up shown by listdescriptors (e.5).
func TestImportAuditRanges(t *testing.T) {
	// Its import of a million scripts runs beside the chain tests.
	t.Parallel()
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	w := wname("w")
	a.ok(nil, "createwallet", `["w", true, true]`, `{"name":"w"}`)
	tpub := k.BIP32["t02"].TPUB
	d := func(p string) string { return cs("wpkh(" + tpub + "/" + p + "/*)") }
	e8 := func(m string) string { return `[{"success":false,"error":{"code":-8,"message":"` + m + `"}}]` }
	for _, c := range []struct{ rng, want string }{
		{`"x"`, e8("Range must be specified as end or as [begin,end]")},
		{`{}`, e8("Range must be specified as end or as [begin,end]")},
		{`[1]`, e8("Range must be specified as end or as [begin,end]")},
		{`[1,2,3]`, e8("Range must be specified as end or as [begin,end]")},
		{`[1,"2"]`, e8("Range must be specified as end or as [begin,end]")},
		{`null`, e8("Range must be specified as end or as [begin,end]")},
		{`[5,4]`, e8("Range specified as [begin,end] must not have begin after end")},
		{`[-1,4]`, e8("Range should be greater or equal than 0")},
		{`-1`, e8("End of range is too high")},
		{`2147483648`, e8("End of range is too high")},
		{`[0,1000000]`, e8("Range is too large")},
		{`[5,1000005]`, e8("Range is too large")},
	} {
		a.ok(w, "importdescriptors", imp(el(d("9"), `"range":`+c.rng)), c.want)
	}
	// next_index bounds, with the default range too.
	a.ok(w, "importdescriptors", imp(el(d("9"), `"range":[5,10]`, `"next_index":4`)), e8("next_index is out of range"))
	a.ok(w, "importdescriptors", imp(el(d("9"), `"range":[5,10]`, `"next_index":11`)), e8("next_index is out of range"))
	a.ok(w, "importdescriptors", imp(el(d("9"), `"next_index":1000`)),
		`[{"success":false,"error":{"code":-8,"message":"next_index is out of range"},"warnings":["`+msgRangeDefault+`"]}]`)
	// Accepted forms and their top-up.
	a.ok(w, "importdescriptors", imp(el(d("1"), `"next_index":999`)), "["+warnResult(msgRangeDefault)+"]")
	a.ok(w, "importdescriptors", imp(el(d("2"), `"range":[5,10]`, `"next_index":10`)), `[{"success":true}]`)
	a.ok(w, "importdescriptors", imp(el(d("3"), `"range":[4,4]`)), `[{"success":true}]`)
	a.ok(w, "importdescriptors", imp(el(d("4"), `"range":[0,1500]`)), `[{"success":true}]`)
	a.ok(w, "importdescriptors", imp(el(d("5"), `"range":[0,999999]`)), `[{"success":true}]`)
	want := map[string][3]int64{d("1"): {0, 1998, 999}, d("2"): {5, 1009, 10}, d("3"): {4, 1003, 4},
		d("4"): {0, 1500, 0}, d("5"): {0, 999999, 0}}
	checkRanges(t, a.ok(w, "listdescriptors", `[]`, ""), want)

	// Shrinking fails with the descriptor as given; growing works and an
	// omitted next_index goes back to the range start.
	a.ok(w, "importdescriptors", imp(el(d("2"), `"range":[5,1008]`)),
		`[{"success":false,"error":{"code":-4,"message":"Could not add descriptor '`+d("2")+`': new range must include current range = [5,1009]"}}]`)
	a.ok(w, "importdescriptors", imp(el(d("2"), `"range":[6,2000]`)),
		`[{"success":false,"error":{"code":-4,"message":"Could not add descriptor '`+d("2")+`': new range must include current range = [5,1009]"}}]`)
	a.ok(w, "importdescriptors", imp(el(d("2"), `"range":[0,1009]`)), `[{"success":true}]`)
	a.ok(w, "importdescriptors", imp(el(d("1"))),
		`[{"success":false,"error":{"code":-4,"message":"Could not add descriptor '`+d("1")+`': new range must include current range = [0,1998]"},"warnings":["`+msgRangeDefault+`"]}]`)
	want[d("2")] = [3]int64{0, 1009, 0}
	checkRanges(t, a.ok(w, "listdescriptors", `[]`, ""), want)
}

func checkRanges(t *testing.T, list json.RawMessage, want map[string][3]int64) {
	t.Helper()
	var l struct {
		Descriptors []struct {
			Desc      string    `json:"desc"`
			Range     *[2]int64 `json:"range"`
			Next      *int64    `json:"next"`
			NextIndex *int64    `json:"next_index"`
		} `json:"descriptors"`
	}
	if err := json.Unmarshal(list, &l); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, d := range l.Descriptors {
		wv, ok := want[d.Desc]
		if !ok {
			continue
		}
		seen++
		if d.Range == nil || d.Next == nil || d.NextIndex == nil {
			t.Errorf("%s: no range/next: %s", d.Desc, list)
			continue
		}
		if got := [3]int64{d.Range[0], d.Range[1], *d.Next}; got != wv || *d.NextIndex != wv[2] {
			t.Errorf("%s: range/next %v, want %v", d.Desc, got, wv)
		}
	}
	if seen != len(want) {
		t.Errorf("listdescriptors shows %d of %d descriptors: %s", seen, len(want), list)
	}
}

// TestImportAuditMultipathWarnings checks that each branch of a multipath
// import pushes its own warnings in turn (e.3 step 12).
func TestImportAuditMultipathWarnings(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	h := wname("hot")
	a.ok(nil, "createwallet", `["hot", false, true]`, `{"name":"hot"}`)
	tprv, tpub := k.BIP32["t03"].TPRV, k.BIP32["t04"].TPUB
	bare := cs(fmt.Sprintf("multi(1,%s/<0;1>/*,%s/<0;1>/*)", tprv, tpub))
	a.ok(h, "importdescriptors", imp(el(bare, `"active":true`)),
		"["+warnResult(msgRangeDefault, msgNotAllKeys, msgUnknownType, msgNotAllKeys, msgUnknownType)+"]")
	three := cs(fmt.Sprintf("multi(1,%s/<2;3;4>/*,%s/<2;3;4>/*)", tprv, tpub))
	a.ok(h, "importdescriptors", imp(el(three, `"active":true`, `"range":[0,5]`)),
		"["+warnResult(msgNotAllKeys, msgUnknownType, msgNotAllKeys, msgUnknownType, msgNotAllKeys, msgUnknownType)+"]")
}

// TestImportAuditMultipathPartial checks that the branches of a multipath
// import are added one after the other: a later branch that fails leaves
// the earlier ones in the wallet (e.3 step 12).
func TestImportAuditMultipathPartial(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	w := wname("w")
	a.ok(nil, "createwallet", `["w", true, true]`, `{"name":"w"}`)
	tpub := k.BIP32["t05"].TPUB
	mp := cs("wpkh(" + tpub + "/<0;1h>/*)")
	a.ok(w, "importdescriptors", imp(el(mp, `"range":[0,9]`)),
		`[{"success":false,"error":{"code":-4,"message":"Cannot expand descriptor. Probably because of hardened derivations without private keys provided"}}]`)
	first := cs("wpkh(" + tpub + "/0/*)")
	a.ok(w, "listdescriptors", `[]`, `{"wallet_name":"w","descriptors":[{"desc":"`+first+`","timestamp":1700000000,"active":false,"range":[0,999],"next":0,"next_index":0}]}`)
	// The first branch failing stops the call before anything is added.
	a.ok(nil, "createwallet", `["w2", true, true]`, `{"name":"w2"}`)
	a.ok(wname("w2"), "importdescriptors", imp(el(cs("wpkh("+tpub+"/<0h;1>/*)"), `"range":[0,9]`)),
		`[{"success":false,"error":{"code":-4,"message":"Cannot expand descriptor. Probably because of hardened derivations without private keys provided"}}]`)
	a.ok(wname("w2"), "listdescriptors", `[]`, `{"wallet_name":"w2","descriptors":[]}`)
}

// TestImportAuditElementOrder checks precedences of the per-element rules
// (e.3 steps 1-11) that the recordings do not pin down one by one.
func TestImportAuditElementOrder(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	w, h := wname("w"), wname("hot")
	a.ok(nil, "createwallet", `["w", true, true]`, `{"name":"w"}`)
	a.ok(nil, "createwallet", `["hot", false, true]`, `{"name":"hot"}`)
	pk, wif := k.WIF["k03"].Pubkey, k.WIF["k03"].WIF
	tpub, tprv := k.BIP32["t06"].TPUB, k.BIP32["t06"].TPRV
	fail := func(code int, msg string, warns ...string) string {
		r := fmt.Sprintf(`{"success":false,"error":{"code":%d,"message":%q}`, code, msg)
		if len(warns) > 0 {
			b, _ := json.Marshal(warns)
			r += `,"warnings":` + string(b)
		}
		return "[" + r + "}]"
	}
	ranged := cs("wpkh(" + tpub + "/0/*)")
	mp := cs("wpkh(" + tpub + "/<0;1>/*)")
	for _, c := range []struct {
		wallet *string
		elem   string
		want   string
	}{
		{w, `{"timestamp":1,"label":"*"}`, fail(-8, "Descriptor not found.")},
		{w, el("bad", `"label":"*"`), fail(-11, "Invalid label name")},
		{w, el(cs("pkh("+pk+")"), `"range":2`, `"active":true`), fail(-8, "Range should not be specified for an un-ranged descriptor")},
		{w, el(cs("pkh("+pk+")"), `"active":true`, `"label":"x"`), fail(-8, "Active descriptors must be ranged")},
		{w, el(mp, `"internal":false`, `"label":"x"`), fail(-5, "Cannot have multipath descriptor while also specifying 'internal'")},
		{w, el(mp, `"label":""`, `"range":[0,2]`), fail(-8, "Multipath descriptors should not have a label")},
		{w, el(ranged, `"label":""`, `"internal":true`), fail(-8, "Ranged descriptors should not have a label", msgRangeDefault)},
		{w, el(cs("pkh("+pk+")"), `"label":null`, `"internal":true`), fail(-8, "Internal addresses should not have a label")},
		{w, el(cs("combo("+tpub+"/0/*)"), `"active":true`, `"range":3`), fail(-4, "Combo descriptors cannot be set to active")},
		{w, el(cs("combo("+pk+")"), `"active":true`), fail(-8, "Active descriptors must be ranged")},
		{w, el(cs("combo("+wif+")"), `"active":true`), fail(-8, "Active descriptors must be ranged")},
		{w, el(cs("combo("+tprv+"/0/*)"), `"active":true`), fail(-4, "Combo descriptors cannot be set to active", msgRangeDefault)},
		{w, el(cs("wpkh("+tprv+"/0h/*)"), `"range":3`), fail(-4, "Cannot import private keys to a wallet with private keys disabled")},
		{w, el(cs("wpkh("+tpub+"/0h/*)"), `"range":3`), fail(-4, "Cannot expand descriptor. Probably because of hardened derivations without private keys provided")},
		{h, el(cs("wpkh("+tpub+"/0h/*)"), `"range":3`), fail(-4, "Cannot expand descriptor. Probably because of hardened derivations without private keys provided")},
		{h, el(cs("addr(mn3X2Gpr7ZzQYbVNRy3KXRXGMLfAS1Gb87)")), fail(-4, "Cannot import descriptor without private keys to a wallet with private keys enabled")},
		{h, el(cs("raw(51)")), fail(-4, "Cannot import descriptor without private keys to a wallet with private keys enabled")},
		{h, el(ranged, `"active":true`), fail(-4, "Cannot import descriptor without private keys to a wallet with private keys enabled", msgRangeDefault)},
		{h, el(cs("pk("+tprv+"/0/*)"), `"active":true`, `"range":[0,3]`), "[" + warnResult(msgUnknownType) + "]"},
		{h, el(cs("sh(multi(1,"+wif+","+k.WIF["k04"].Pubkey+"))"), `"label":"m"`), "[" + warnResult(msgNotAllKeys) + "]"},
		{w, el(cs("pkh("+pk+")"), `"internal":false`, `"label":"ext"`), `[{"success":true}]`},
	} {
		a.ok(c.wallet, "importdescriptors", imp(c.elem), c.want)
	}
	// Each element of one call gets its own result, in order.
	a.ok(w, "importdescriptors", imp(el("bad"), el(cs("wpkh("+pk+")")), `{"timestamp":"now"}`),
		`[{"success":false,"error":{"code":-5,"message":"Missing checksum"}},{"success":true},{"success":false,"error":{"code":-8,"message":"Descriptor not found."}}]`)
}

// TestImportAuditUpdates checks re-imports (e.5 identity): the new
// timestamp, label and next_index replace the old ones, private keys are
// merged, apostrophes and h name the same descriptor, and activation moves
// with active and internal.
func TestImportAuditUpdates(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	w, h := wname("w"), wname("hot")
	a.ok(nil, "createwallet", `["w", true, true]`, `{"name":"w"}`)
	a.ok(nil, "createwallet", `["hot", false, true]`, `{"name":"hot"}`)
	pk := k.WIF["k05"].Pubkey
	single := cs("pkh(" + pk + ")")
	a.ok(w, "importdescriptors", imp(el(single, `"label":"one"`)), `[{"success":true}]`)
	a.ok(w, "importdescriptors", `[[{"desc":"`+single+`","timestamp":1800000000,"label":"two"}]]`, `[{"success":true}]`)
	a.ok(w, "listdescriptors", `[]`, `{"wallet_name":"w","descriptors":[{"desc":"`+single+`","timestamp":1800000000,"active":false}]}`)
	var info struct {
		Labels    []string `json:"labels"`
		Timestamp int64    `json:"timestamp"`
		IsChange  bool     `json:"ischange"`
	}
	addr := a.ok(w, "deriveaddresses", `["`+single+`"]`, "")
	var addrs []string
	if err := json.Unmarshal(addr, &addrs); err != nil || len(addrs) != 1 {
		t.Fatalf("deriveaddresses: %s", addr)
	}
	if err := json.Unmarshal(a.ok(w, "getaddressinfo", `["`+addrs[0]+`"]`, ""), &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Labels) != 1 || info.Labels[0] != "two" || info.Timestamp != 1800000000 || info.IsChange {
		t.Errorf("after re-import: %+v, want label two, timestamp 1800000000, not change", info)
	}
	// A re-import with internal true keeps the receive entry.
	a.ok(w, "importdescriptors", imp(el(single, `"internal":true`)), `[{"success":true}]`)
	if err := json.Unmarshal(a.ok(w, "getaddressinfo", `["`+addrs[0]+`"]`, ""), &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Labels) != 1 || info.Labels[0] != "two" || info.IsChange {
		t.Errorf("after internal re-import: %+v, want label two kept", info)
	}

	// Apostrophes and h are one descriptor; the private listing shows the
	// last form imported.
	tprv := k.BIP32["t07"].TPRV
	apos := cs("pkh(" + tprv + "/44'/1'/0'/0/*)")
	hform := cs("pkh(" + tprv + "/44h/1h/0h/0/*)")
	a.ok(h, "importdescriptors", imp(el(apos, `"active":true`, `"range":[0,1999]`)), `[{"success":true}]`)
	a.ok(h, "getnewaddress", `["", "legacy"]`, "")
	a.ok(h, "importdescriptors", imp(el(hform, `"active":true`, `"range":[0,1999]`)), `[{"success":true}]`)
	var l struct {
		Descriptors []struct {
			Desc   string `json:"desc"`
			Active bool   `json:"active"`
			Next   int64  `json:"next"`
		} `json:"descriptors"`
	}
	if err := json.Unmarshal(a.ok(h, "listdescriptors", `[true]`, ""), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Descriptors) != 1 || l.Descriptors[0].Desc != hform || l.Descriptors[0].Next != 0 || !l.Descriptors[0].Active {
		t.Errorf("listdescriptors true after apostrophe and h imports: %+v, want one active %s at next 0", l.Descriptors, hform)
	}

	// Fewer private keys keep the stored ones.
	wif1, wif2 := k.WIF["k06"].WIF, k.WIF["k07"].WIF
	pub2 := k.WIF["k07"].Pubkey
	both := cs("wsh(multi(1," + wif1 + "," + wif2 + "))")
	one := cs("wsh(multi(1," + wif1 + "," + pub2 + "))")
	a.ok(h, "importdescriptors", imp(el(both)), `[{"success":true}]`)
	a.ok(h, "importdescriptors", imp(el(one)), "["+warnResult(msgNotAllKeys)+"]")
	if got := string(a.ok(h, "listdescriptors", `[true]`, "")); !strings.Contains(got, both) {
		t.Errorf("listdescriptors true lost a private key: %s", got)
	}

	// Activation moves with internal and is dropped by a re-import that
	// omits active.
	xpub := cs("wpkh(" + k.BIP32["t08"].TPUB + "/0/*)")
	a.ok(w, "importdescriptors", imp(el(xpub, `"active":true`, `"range":[0,1999]`)), `[{"success":true}]`)
	a.ok(w, "getnewaddress", `[]`, "")
	a.fails(w, "getnewaddress", `["", ""]`, -5, "Unknown address type ''")
	a.fails(w, "getrawchangeaddress", `["bech32"]`, -4, msgNoKeys)
	a.ok(w, "importdescriptors", imp(el(xpub, `"active":true`, `"internal":true`, `"range":[0,1999]`)), `[{"success":true}]`)
	a.fails(w, "getnewaddress", `[]`, -4, msgNoKeys)
	a.fails(w, "getnewaddress", `["*", "bogus"]`, -4, msgNoKeys)
	a.ok(w, "getrawchangeaddress", `[]`, "")
	// Not active, not internal: the internal activation stays.
	a.ok(w, "importdescriptors", imp(el(xpub, `"range":[0,1999]`)), `[{"success":true}]`)
	a.ok(w, "getrawchangeaddress", `[]`, "")
	a.fails(w, "getrawchangeaddress", `["legacy"]`, -12, "Error: No legacy addresses available.")
	a.fails(w, "getrawchangeaddress", `["Legacy"]`, -5, "Unknown address type 'Legacy'")
	a.fails(w, "getrawchangeaddress", `[""]`, -5, "Unknown address type ''")
	a.ok(w, "importdescriptors", imp(el(xpub, `"internal":true`, `"range":[0,1999]`)), `[{"success":true}]`)
	a.fails(w, "getrawchangeaddress", `[]`, -4, msgNoKeys)
}

// TestImportAuditWalletLifecycle checks createwallet, loadwallet,
// unloadwallet, listwallets and getwalletinfo (spec f).
func TestImportAuditWalletLifecycle(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	wdir := a.dir + "/regtest/wallets/"
	exists := func(name string) string {
		return "Wallet file verification failed. Failed to create database path '" + wdir + name + "'. Database already exists."
	}
	a.ok(nil, "createwallet", `["a/b", true, true]`, `{"name":"a/b"}`)
	a.fails(nil, "createwallet", `["a/b", false, true]`, -4, exists("a/b"))
	a.ok(nil, "createwallet", `["", true, true]`, `{"name":""}`)
	a.ok(nil, "createwallet", `["ar", true, true, null, true]`, `{"name":"ar"}`)
	a.ok(nil, "createwallet", `{"wallet_name":"enc","blank":true,"passphrase":"pw"}`, `{"name":"enc"}`)
	a.ok(nil, "createwallet", `["e2", true, true, ""]`, `{"name":"e2","warnings":["Empty string given as passphrase, wallet will not be encrypted."]}`)
	a.fails(nil, "createwallet", `["x", true, true, "pw", false, false]`, -4, `descriptors argument must be set to "true"; it is no longer possible to create a legacy wallet.`)
	a.fails(nil, "createwallet", `["x", true, true, "pw"]`, -4, "Passphrase provided but private keys are disabled. A passphrase is only used to encrypt private keys, so cannot be used for wallets with private keys disabled.")
	a.fails(nil, "createwallet", `["x", false, true, null, false, true, null, true]`, -4, "Private keys must be disabled when using an external signer")
	a.fails(nil, "createwallet", `["enc", false, true]`, -4, exists("enc"))
	a.code(nil, "createwallet", `["x", "true"]`, -3)
	a.code(nil, "createwallet", `["x", false, true, 5]`, -3)
	a.ok(nil, "listwallets", `[]`, `["a/b","","ar","enc","e2"]`)
	a.fails(nil, "getwalletinfo", `[]`, -19, "Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path.")

	flags := func(f ...string) string { b, _ := json.Marshal(f); return string(b) }
	info := func(name string, pke, avoid, blank bool, kp, kpi int, extra, fl string) string {
		b, _ := json.Marshal(name)
		return fmt.Sprintf(`{"walletname":%s,"walletversion":169900,"format":"sqlite","txcount":0,"keypoolsize":%d,"keypoolsize_hd_internal":%d,%s"paytxfee":0.0,"private_keys_enabled":%v,"avoid_reuse":%v,"scanning":false,"descriptors":true,"external_signer":false,"blank":%v,%s"flags":%s,"lastprocessedblock":{"hash":"0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206","height":0}}`,
			b, kp, kpi, "", pke, avoid, blank, extra, fl)
	}
	a.ok(wname(""), "getwalletinfo", `[]`, info("", false, false, true, 0, 0, "",
		flags("last_hardened_xpub_cached", "disable_private_keys", "blank", "descriptor_wallet")))
	a.ok(wname("ar"), "getwalletinfo", `[]`, info("ar", false, true, true, 0, 0, "",
		flags("avoid_reuse", "last_hardened_xpub_cached", "disable_private_keys", "blank", "descriptor_wallet")))
	encInfo := a.ok(wname("enc"), "getwalletinfo", `[]`, "")
	if !strings.Contains(string(encInfo), `"keypoolsize_hd_internal":0,"unlocked_until":0,"paytxfee"`) {
		t.Errorf("encrypted wallet info lacks unlocked_until 0 in place: %s", encInfo)
	}

	// Imports: keypool sizes count active descriptors only, birthtime is the
	// earliest import.
	w := wname("a/b")
	tpub := k.BIP32["t01"].TPUB
	a.ok(w, "importdescriptors", imp(
		el(cs("wpkh("+tpub+"/0/*)"), `"active":true`, `"range":[0,1999]`),
		el(cs("tr("+tpub+"/1/*)"), `"active":true`, `"internal":true`, `"next_index":5`),
		el(cs("pkh("+tpub+"/2/*)"), `"range":[0,9]`),
		`{"desc":"`+cs("pkh("+k.WIF["k01"].Pubkey+")")+`","timestamp":1600000000}`,
	), `[{"success":true},`+warnResult(msgRangeDefault)+`,{"success":true},{"success":true}]`)
	a.ok(w, "getwalletinfo", `[]`, info("a/b", false, false, true, 2000, 1000, `"birthtime":1600000000,`,
		flags("last_hardened_xpub_cached", "disable_private_keys", "blank", "descriptor_wallet")))

	// listdescriptors.
	a.fails(w, "listdescriptors", `[true]`, -4, "Can't get descriptor string.")
	a.ok(wname(""), "listdescriptors", `[true]`, `{"wallet_name":"","descriptors":[]}`)
	a.code(w, "listdescriptors", `["true"]`, -3)
	a.code(w, "listdescriptors", `[true, 1]`, -1)

	// Unload, load, and their errors.
	a.fails(nil, "loadwallet", `["nope"]`, -18, "Wallet file verification failed. Failed to load database path '"+wdir+"nope'. Path does not exist.")
	a.fails(nil, "loadwallet", `["ar"]`, -35, `Wallet "ar" is already loaded.`)
	a.ok(nil, "unloadwallet", `["a/b"]`, `{}`)
	a.fails(w, "getwalletinfo", `[]`, -18, "Requested wallet does not exist or is not loaded")
	a.fails(nil, "unloadwallet", `["a/b"]`, -18, "Requested wallet does not exist or is not loaded")
	a.ok(wname("ar"), "unloadwallet", `[]`, `{}`)
	a.ok(nil, "listwallets", `[]`, `["","enc","e2"]`)
	a.ok(nil, "loadwallet", `["a/b"]`, `{"name":"a/b"}`)
	a.ok(nil, "listwallets", `[]`, `["","enc","e2","a/b"]`)
	a.ok(w, "getwalletinfo", `[]`, info("a/b", false, false, true, 2000, 1000, `"birthtime":1600000000,`,
		flags("last_hardened_xpub_cached", "disable_private_keys", "blank", "descriptor_wallet")))
	a.fails(nil, "createwallet", `["a/b", true, true]`, -4, exists("a/b"))
}

// TestImportAuditOutputTypes checks which address type each ranged
// descriptor serves when active (e.5, Core's GetOutputType), and that
// descriptors without one are refused activation with a warning.
func TestImportAuditOutputTypes(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	tp := func(i int) string { return k.BIP32[fmt.Sprintf("t%02d", i)].TPUB }
	for i, c := range []struct {
		desc, typ, prefix string
	}{
		{"sh(pk(" + tp(1) + "/0/*))", "legacy", "2"},
		{"sh(sortedmulti(1," + tp(1) + "/1/*," + tp(2) + "/1/*))", "legacy", "2"},
		{"sh(wsh(pkh(" + tp(1) + "/2/*)))", "p2sh-segwit", "2"},
		{"wsh(pk(" + tp(1) + "/3/*))", "bech32", "bcrt1q"},
		{"wsh(and_v(v:pk(" + tp(1) + "/4/*),older(10)))", "bech32", "bcrt1q"},
		{"rawtr(" + tp(1) + "/5/*)", "bech32m", "bcrt1p"},
		{"tr(" + tp(1) + "/6/*,pk(" + tp(2) + "/6/*))", "bech32m", "bcrt1p"},
	} {
		name := fmt.Sprintf("w%d", i)
		a.ok(nil, "createwallet", `["`+name+`", true, true]`, "")
		a.ok(wname(name), "importdescriptors", imp(el(cs(c.desc), `"active":true`, `"range":[0,3]`)), `[{"success":true}]`)
		addr := a.ok(wname(name), "getnewaddress", `["", "`+c.typ+`"]`, "")
		var s string
		if json.Unmarshal(addr, &s) != nil || !strings.HasPrefix(s, c.prefix) {
			t.Errorf("%s: getnewaddress %s = %s, want prefix %s", c.desc, c.typ, addr, c.prefix)
		}
		derived := a.ok(nil, "deriveaddresses", `["`+cs(c.desc)+`", [0,0]]`, "")
		if !strings.Contains(string(derived), s) {
			t.Errorf("%s: getnewaddress %s is not index 0 %s", c.desc, s, derived)
		}
	}
	a.ok(nil, "createwallet", `["none", true, true]`, "")
	for _, d := range []string{"pk(" + tp(3) + "/0/*)", "multi(1," + tp(3) + "/1/*)", "sortedmulti(1," + tp(3) + "/2/*," + tp(4) + "/2/*)"} {
		a.ok(wname("none"), "importdescriptors", imp(el(cs(d), `"active":true`, `"range":[0,3]`)), "["+warnResult(msgUnknownType)+"]")
	}
	a.fails(wname("none"), "getnewaddress", `[]`, -4, msgNoKeys)
}

// TestImportAuditWalletNames checks the routing of wallet names that need
// percent-encoding and the name echoed by the wallet RPCs (a.9).
func TestImportAuditWalletNames(t *testing.T) {
	a := newAuditNode(t)
	for _, n := range []string{"name with space", "pct%41", "ünï", "a+b"} {
		b, _ := json.Marshal(n)
		a.ok(nil, "createwallet", `[`+string(b)+`, true, true]`, `{"name":`+string(b)+`}`)
		a.ok(wname(n), "listdescriptors", `[]`, `{"wallet_name":`+string(b)+`,"descriptors":[]}`)
	}
	r := a.n.call(t, "/wallet/pct%41", "listdescriptors", json.RawMessage(`[]`))
	if r.Error == nil || r.Error.Code != -18 {
		t.Errorf("/wallet/pct%%41 (the wallet pctA) answered %s %+v, want -18", r.Result, r.Error)
	}
	r = a.n.call(t, "/wallet/a+b", "listdescriptors", json.RawMessage(`[]`))
	if r.Error != nil {
		t.Errorf("/wallet/a+b: %+v", r.Error)
	}
	a.ok(nil, "createwallet", `["", true, true]`, `{"name":""}`)
	a.ok(wname(""), "listdescriptors", `[]`, `{"wallet_name":"","descriptors":[]}`)
	a.fails(nil, "listdescriptors", `[]`, -19, "Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path.")
}

// TestImportAuditBirthtime checks that getwalletinfo.birthtime only moves
// back while the wallet is loaded (a re-import with a later timestamp does
// not raise it) and is the earliest stored timestamp after a reload.
func TestImportAuditBirthtime(t *testing.T) {
	k := loadAuditKeys(t)
	a := newAuditNode(t)
	w := wname("w")
	a.ok(nil, "createwallet", `["w", true, true]`, "")
	birth := func() string {
		var in struct {
			Birthtime *int64 `json:"birthtime"`
		}
		if err := json.Unmarshal(a.ok(w, "getwalletinfo", `[]`, ""), &in); err != nil {
			t.Fatal(err)
		}
		if in.Birthtime == nil {
			return "absent"
		}
		return fmt.Sprint(*in.Birthtime)
	}
	if b := birth(); b != "absent" {
		t.Errorf("empty wallet birthtime %s, want absent", b)
	}
	d := cs("wpkh(" + k.WIF["k09"].Pubkey + ")")
	a.ok(w, "importdescriptors", `[[{"desc":"`+d+`","timestamp":1700000000}]]`, `[{"success":true}]`)
	a.ok(w, "importdescriptors", `[[{"desc":"`+d+`","timestamp":1800000000}]]`, `[{"success":true}]`)
	if b := birth(); b != "1700000000" {
		t.Errorf("birthtime after a later re-import %s, want 1700000000", b)
	}
	a.ok(w, "importdescriptors", `[[{"desc":"`+d+`","timestamp":-5}]]`, `[{"success":true}]`)
	a.ok(w, "importdescriptors", `[[{"desc":"`+d+`","timestamp":1800000000}]]`, `[{"success":true}]`)
	if b := birth(); b != "1" {
		t.Errorf("birthtime after timestamp -5 %s, want 1", b)
	}
	a.ok(nil, "unloadwallet", `["w"]`, `{}`)
	a.ok(nil, "loadwallet", `["w"]`, `{"name":"w"}`)
	if b := birth(); b != "1800000000" {
		t.Errorf("birthtime after reload %s, want 1800000000", b)
	}
}
