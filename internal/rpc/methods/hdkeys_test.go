package methods

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

type hdKeyReply struct {
	Xpub        string `json:"xpub"`
	HasPrivate  bool   `json:"has_private"`
	Xprv        string `json:"xprv"`
	Descriptors []struct {
		Desc   string `json:"desc"`
		Active bool   `json:"active"`
	} `json:"descriptors"`
}

func (a *auditNode) hdkeys(w *string, params string) []hdKeyReply {
	a.t.Helper()
	var out []hdKeyReply
	mustResult(a.t, a.do(w, "gethdkeys", params), "gethdkeys "+params, &out)
	return out
}

type listedDesc struct {
	Desc     string `json:"desc"`
	Active   bool   `json:"active"`
	Internal *bool  `json:"internal"`
}

func (a *auditNode) descs(w *string, private bool) []listedDesc {
	a.t.Helper()
	var out struct {
		Descriptors []listedDesc `json:"descriptors"`
	}
	mustResult(a.t, a.do(w, "listdescriptors", fmt.Sprintf("[%v]", private)), "listdescriptors", &out)
	return out.Descriptors
}

// TestGetHDKeys follows Core's wallet_gethdkeys.py: a new wallet has one
// key used by its eight active descriptors, the xprv only on request, a
// second key after encryption rotates it, -13 for private keys of a locked
// wallet, keys of imports (ranged, not ranged, multisig), none for lone
// keys, and the watch-only and type errors.
func TestGetHDKeys(t *testing.T) {
	a := newAuditNode(t)
	w := wname("basic")
	a.ok(nil, "createwallet", `["basic"]`, "")
	keys := a.hdkeys(w, "[]")
	if len(keys) != 1 || !keys[0].HasPrivate || keys[0].Xprv != "" || len(keys[0].Descriptors) != 8 {
		t.Fatalf("new wallet: %+v", keys)
	}
	// Each key's descriptors come sorted, as listdescriptors shows them.
	listed := a.descs(w, false)
	for i, d := range keys[0].Descriptors {
		if d.Desc != listed[i].Desc || !d.Active {
			t.Errorf("descriptor %d: %+v, listdescriptors %+v", i, d, listed[i])
		}
	}
	if !sort.SliceIsSorted(keys[0].Descriptors, func(i, j int) bool { return keys[0].Descriptors[i].Desc < keys[0].Descriptors[j].Desc }) {
		t.Error("descriptors not sorted")
	}
	xpub := keys[0].Xpub
	priv := a.hdkeys(w, `[{"private":true}]`)
	if len(priv) != 1 || priv[0].Xpub != xpub || !strings.HasPrefix(priv[0].Xprv, "tprv") {
		t.Fatalf("private: %+v", priv)
	}
	r := a.do(w, "gethdkeys", `[{"private":true}]`)
	if got := objectKeys(t, mustArray(t, r.Result)[0]); strings.Join(got, ",") != "xpub,has_private,xprv,descriptors" {
		t.Errorf("field order %v", got)
	}
	xprv := priv[0].Xprv
	for _, d := range a.descs(w, true) {
		if !strings.Contains(d.Desc, xprv) {
			t.Errorf("%s lacks the xprv", d.Desc)
		}
	}
	// Named arguments, and the type checks of the options.
	if named := a.do(w, "gethdkeys", `{"private":true,"active_only":true}`); !sameJSON(named.Result, r.Result) {
		t.Errorf("named: %s", named.Result)
	}
	a.fails(w, "gethdkeys", `[{"private":1}]`, -3, "JSON value of type number is not of expected type bool")
	a.fails(w, "gethdkeys", `[{"active_only":null}]`, -3, "JSON value of type null is not of expected type bool")
	a.code(w, "gethdkeys", `["x"]`, -3)

	// Encryption makes a new key for the active descriptors.
	a.ok(w, "encryptwallet", `["pass"]`, "")
	keys = a.hdkeys(w, "[]")
	if len(keys) != 2 || !keys[0].HasPrivate || !keys[1].HasPrivate {
		t.Fatalf("after encryption: %+v", keys)
	}
	act := a.hdkeys(w, `[{"active_only":true}]`)
	if len(act) != 1 || act[0].Xpub == xpub || act[0].Xprv != "" || !act[0].HasPrivate {
		t.Fatalf("active only: %+v", act)
	}
	a.fails(w, "gethdkeys", `[{"private":true}]`, -13, "Error: Please enter the wallet passphrase with walletpassphrase first.")
	a.ok(w, "walletpassphrase", `["pass", 100]`, "null")
	newKey := a.hdkeys(w, `[{"active_only":true,"private":true}]`)[0]
	if newKey.Xprv == "" || newKey.Xprv == xprv {
		t.Fatalf("rotated key: %+v", newKey)
	}
	for _, d := range a.descs(w, true) {
		want := xprv
		if d.Active {
			want = newKey.Xprv
		}
		if !strings.Contains(d.Desc, want) {
			t.Errorf("%s (active %v) lacks its key", d.Desc, d.Active)
		}
	}

	// Lone keys are no HD keys; an xprv without a path is one.
	lone := wname("lone")
	a.ok(nil, "createwallet", `["lone", false, true]`, "")
	a.ok(lone, "gethdkeys", "[]", "[]")
	a.ok(lone, "importdescriptors", imp(el(cs("wpkh(cTe1f5rdT8A8DFgVWTjyPwACsDPJM9ff4QngFxUixCSvvbg1x6sh)"))), "")
	a.ok(lone, "gethdkeys", "[]", "[]")
	a.ok(lone, "importdescriptors", imp(el(cs("wpkh("+xprv+")"))), "")
	a.ok(lone, "gethdkeys", "[]", `[{"xpub":"`+xpub+`","has_private":true,"descriptors":[{"desc":"`+cs("wpkh("+xpub+")")+`","active":false}]}]`)

	// A multisig of a key the wallet holds and one it does not: both
	// listed, in Core's order of keys, and private fails as Core's map
	// lookup does.
	other := wname("other")
	a.ok(nil, "createwallet", `["other"]`, "")
	xpub2 := a.hdkeys(other, "[]")[0].Xpub
	ms := wname("ms")
	a.ok(nil, "createwallet", `["ms", false, true]`, "")
	a.ok(ms, "importdescriptors", imp(el(cs("wsh(multi(2,"+xprv+"/*,"+xpub2+"/*))"))), "")
	pubMulti := cs("wsh(multi(2," + xpub + "/*," + xpub2 + "/*))")
	got := a.hdkeys(ms, "[]")
	if len(got) != 2 {
		t.Fatalf("multisig: %+v", got)
	}
	for _, k := range got {
		if len(k.Descriptors) != 1 || k.Descriptors[0].Desc != pubMulti || k.Descriptors[0].Active {
			t.Errorf("multisig key %+v", k)
		}
		if k.HasPrivate != (k.Xpub == xpub) {
			t.Errorf("multisig key %s has_private %v", k.Xpub, k.HasPrivate)
		}
	}
	a.fails(ms, "gethdkeys", `[{"private":true}]`, -1, "map::at")

	// A watch-only wallet lists its xpubs without private keys.
	wo := wname("wo")
	a.ok(nil, "createwallet", `["wo", true, true]`, "")
	a.ok(wo, "importdescriptors", imp(el(cs("wpkh("+xpub2+"/0/*)"), `"active":true`)), "")
	a.ok(wo, "gethdkeys", "[]", `[{"xpub":"`+xpub2+`","has_private":false,"descriptors":[{"desc":"`+cs("wpkh("+xpub2+"/0/*)")+`","active":true}]}]`)
	a.fails(wo, "gethdkeys", `[{"private":true}]`, -1, "map::at")
	empty := wname("empty")
	a.ok(nil, "createwallet", `["empty", true, true]`, "")
	a.ok(empty, "gethdkeys", `[{"private":true}]`, "[]")
}

func mustArray(t *testing.T, raw json.RawMessage) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil || len(out) == 0 {
		t.Fatalf("not a non-empty array: %s", raw)
	}
	return out
}
