package methods

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	btcaddr "github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/address/v2/base58"
	"github.com/btcsuite/btcd/address/v2/bech32"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // HASH160 is Bitcoin's

	"github.com/descwallet/descwallet/internal/testvec"
)

// The expectations below are built from the key material of the recorded
// corpus and the rules of spec sections (c) and (e.8): addresses, scripts,
// fingerprints, taproot tweaks and descriptor checksums are computed here,
// independently of the wallet code.

const aiTimestamp = 1700000000

var aiNet = &chaincfg.RegressionNetParams

// aiKV is one field of an expected JSON object; aiObj keeps field order.
type aiKV struct {
	k string
	v any
}

type aiObj []aiKV

// aiKeys is the key material of core_rpc/wallet.json.
type aiKeys struct {
	WIF map[string]struct {
		WIF    string `json:"wif"`
		PubKey string `json:"pubkey"`
		XOnly  string `json:"xonly"`
	} `json:"wif"`
	BIP32 map[string]struct {
		TPrv string `json:"tprv"`
		TPub string `json:"tpub"`
	} `json:"bip32"`
}

func loadAIKeys(t *testing.T) aiKeys {
	t.Helper()
	var f struct {
		Keys aiKeys `json:"keys"`
	}
	testvec.Load(t, "core_rpc/wallet.json", &f)
	return f.Keys
}

func aiHash160(b []byte) []byte {
	s := sha256.Sum256(b)
	r := ripemd160.New()
	r.Write(s[:])
	return r.Sum(nil)
}

func aiSHA256(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

func aiHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// aiFP is the fingerprint Core gives a plain key: the first 4 bytes of
// HASH160 of its serialization (33 or 65 bytes; x-only keys with 02).
func aiFP(pub []byte) string {
	if len(pub) == 32 {
		pub = append([]byte{2}, pub...)
	}
	return hex.EncodeToString(aiHash160(pub)[:4])
}

// BIP-380 descriptor checksum.
const (
	aiInputCharset    = "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ "
	aiChecksumCharset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
)

func aiPolymod(c uint64, val int) uint64 {
	c0 := c >> 35
	c = ((c & 0x7ffffffff) << 5) ^ uint64(val)
	for i, g := range []uint64{0xf5dee51989, 0xa9fdca3312, 0x1bab10e32d, 0x3706b1677a, 0x644d626ffd} {
		if c0>>i&1 != 0 {
			c ^= g
		}
	}
	return c
}

// aiCS returns desc with its checksum appended.
func aiCS(desc string) string {
	c, cls, n := uint64(1), 0, 0
	for _, ch := range desc {
		pos := strings.IndexRune(aiInputCharset, ch)
		if pos < 0 {
			panic("bad descriptor character in " + desc)
		}
		c = aiPolymod(c, pos&31)
		cls = cls*3 + pos>>5
		if n++; n == 3 {
			c, cls, n = aiPolymod(c, cls), 0, 0
		}
	}
	if n > 0 {
		c = aiPolymod(c, cls)
	}
	for range 8 {
		c = aiPolymod(c, 0)
	}
	c ^= 1
	out := make([]byte, 8)
	for j := range 8 {
		out[j] = aiChecksumCharset[c>>(5*(7-j))&31]
	}
	return desc + "#" + string(out)
}

// aiOut is an output script with its address.
type aiOut struct {
	addr string
	spk  []byte
}

func aiPush(b []byte) []byte { return append([]byte{byte(len(b))}, b...) }

func aiP2PKH(pub []byte) aiOut {
	h := aiHash160(pub)
	a, _ := btcaddr.NewAddressPubKeyHash(h, aiNet)
	return aiOut{a.EncodeAddress(), append(append([]byte{0x76, 0xa9, 0x14}, h...), 0x88, 0xac)}
}

func aiP2WPKH(pub []byte) aiOut {
	h := aiHash160(pub)
	a, _ := btcaddr.NewAddressWitnessPubKeyHash(h, aiNet)
	return aiOut{a.EncodeAddress(), append([]byte{0, 0x14}, h...)}
}

func aiP2SH(script []byte) aiOut {
	h := aiHash160(script)
	a, _ := btcaddr.NewAddressScriptHashFromHash(h, aiNet)
	return aiOut{a.EncodeAddress(), append(append([]byte{0xa9, 0x14}, h...), 0x87)}
}

func aiP2WSH(script []byte) aiOut {
	h := aiSHA256(script)
	a, _ := btcaddr.NewAddressWitnessScriptHash(h, aiNet)
	return aiOut{a.EncodeAddress(), append([]byte{0, 0x20}, h...)}
}

func aiP2TR(x []byte) aiOut {
	a, _ := btcaddr.NewAddressTaproot(x, aiNet)
	return aiOut{a.EncodeAddress(), append([]byte{0x51, 0x20}, x...)}
}

// aiTapOutput is the BIP 341 output key of internal key x and merkle root
// (nil: key path only).
func aiTapOutput(x, root []byte) []byte {
	pk, err := schnorr.ParsePubKey(x)
	if err != nil {
		panic(err)
	}
	if root == nil {
		return schnorr.SerializePubKey(txscript.ComputeTaprootKeyNoScript(pk))
	}
	return schnorr.SerializePubKey(txscript.ComputeTaprootOutputKey(pk, root))
}

func aiLeafHash(script []byte) []byte {
	h := txscript.NewBaseTapLeaf(script).TapHash()
	return h[:]
}

func aiBranch(a, b []byte) []byte {
	if bytes.Compare(a, b) > 0 {
		a, b = b, a
	}
	h := sha256.Sum256([]byte("TapBranch"))
	m := sha256.New()
	m.Write(h[:])
	m.Write(h[:])
	m.Write(a)
	m.Write(b)
	return m.Sum(nil)
}

func aiNum(n int) []byte {
	if n <= 16 {
		return []byte{0x50 + byte(n)}
	}
	return []byte{1, byte(n)}
}

func aiMulti(k int, keys ...[]byte) []byte {
	s := aiNum(k)
	for _, p := range keys {
		s = append(s, aiPush(p)...)
	}
	return append(append(s, aiNum(len(keys))...), 0xae)
}

func aiPK(pub []byte) []byte { return append(aiPush(pub), 0xac) }

// aiKind is c.3 rows 8-11 for a scriptPubKey.
func aiKind(spk []byte) aiObj {
	switch {
	case len(spk) == 25 && spk[0] == 0x76:
		return aiObj{{"isscript", false}, {"iswitness", false}}
	case len(spk) == 23 && spk[0] == 0xa9:
		return aiObj{{"isscript", true}, {"iswitness", false}}
	case bytes.Equal(spk, []byte{0x51, 0x02, 0x4e, 0x73}):
		return aiObj{{"isscript", true}, {"iswitness", true}}
	case len(spk) >= 4 && (spk[0] == 0 || spk[0] >= 0x51 && spk[0] <= 0x60) && int(spk[1]) == len(spk)-2:
		v := 0
		if spk[0] != 0 {
			v = int(spk[0]) - 0x50
		}
		prog := hex.EncodeToString(spk[2:])
		n := len(spk) - 2
		switch {
		case v == 0 && n == 20:
			return aiObj{{"isscript", false}, {"iswitness", true}, {"witness_version", 0}, {"witness_program", prog}}
		case v == 0 && n == 32, v == 1 && n == 32:
			return aiObj{{"isscript", true}, {"iswitness", true}, {"witness_version", v}, {"witness_program", prog}}
		}
		return aiObj{{"iswitness", true}, {"witness_version", v}, {"witness_program", prog}}
	}
	panic("unexpected script " + hex.EncodeToString(spk))
}

// aiMeta is the key metadata of c.7.
type aiMeta struct{ path, fp string }

// aiWant is the expected getaddressinfo reply for one address.
type aiWant struct {
	out     aiOut
	mine    bool
	desc    string // inferred, without checksum; "" when not solvable
	parent  string // without checksum
	details aiObj
	change  bool
	meta    *aiMeta
	labels  []string
}

func (w aiWant) obj() aiObj {
	o := aiObj{{"address", w.out.addr}, {"scriptPubKey", hex.EncodeToString(w.out.spk)}, {"ismine", w.mine}, {"solvable", w.desc != ""}}
	if w.desc != "" {
		o = append(o, aiKV{"desc", aiCS(w.desc)})
	}
	if w.parent != "" {
		o = append(o, aiKV{"parent_desc", aiCS(w.parent)})
	}
	o = append(o, aiKV{"iswatchonly", false})
	o = append(o, aiKind(w.out.spk)...)
	o = append(o, w.details...)
	o = append(o, aiKV{"ischange", w.change})
	if w.meta != nil {
		o = append(o, aiKV{"timestamp", aiTimestamp}, aiKV{"hdkeypath", w.meta.path},
			aiKV{"hdseedid", strings.Repeat("0", 40)}, aiKV{"hdmasterfingerprint", w.meta.fp})
	}
	labels := w.labels
	if labels == nil {
		labels = []string{}
	}
	return append(o, aiKV{"labels", labels})
}

// aiForeign is the reply for an address the wallet does not have.
func aiForeign(out aiOut) aiWant { return aiWant{out: out} }

func aiPKHDetails(pub []byte) aiObj {
	return aiObj{{"pubkey", hex.EncodeToString(pub)}, {"iscompressed", len(pub) == 33}}
}

func aiWPKHDetails(pub []byte) aiObj { return aiObj{{"pubkey", hex.EncodeToString(pub)}} }

func aiSHWPKHDetails(pub []byte) aiObj {
	in := aiP2WPKH(pub)
	emb := append(aiKind(in.spk), aiKV{"pubkey", hex.EncodeToString(pub)}, aiKV{"address", in.addr}, aiKV{"scriptPubKey", hex.EncodeToString(in.spk)})
	return aiObj{{"script", "witness_v0_keyhash"}, {"hex", hex.EncodeToString(in.spk)}, {"pubkey", hex.EncodeToString(pub)}, {"embedded", emb}}
}

func aiMultiDetails(k int, keys ...[]byte) aiObj {
	var ks []string
	for _, p := range keys {
		ks = append(ks, hex.EncodeToString(p))
	}
	return aiObj{{"script", "multisig"}, {"hex", hex.EncodeToString(aiMulti(k, keys...))}, {"sigsrequired", k}, {"pubkeys", ks}}
}

func aiSHWSHMultiDetails(k int, keys ...[]byte) aiObj {
	in := aiP2WSH(aiMulti(k, keys...))
	emb := append(aiKind(in.spk), aiMultiDetails(k, keys...)...)
	emb = append(emb, aiKV{"address", in.addr}, aiKV{"scriptPubKey", hex.EncodeToString(in.spk)})
	return aiObj{{"script", "witness_v0_scripthash"}, {"hex", hex.EncodeToString(in.spk)}, {"embedded", emb}}
}

// aiOrdered is a decoded JSON object with its field order.
type aiOrdered []struct {
	k string
	v json.RawMessage
}

func aiDecodeOrdered(raw []byte) (aiOrdered, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object: %s", raw)
	}
	var o aiOrdered
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, struct {
			k string
			v json.RawMessage
		}{tok.(string), v})
	}
	return o, nil
}

// aiCompare checks got against want field by field, order included.
func aiCompare(t *testing.T, where string, got []byte, want aiObj) {
	t.Helper()
	o, err := aiDecodeOrdered(got)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	var gk, wk []string
	for _, f := range o {
		gk = append(gk, f.k)
	}
	for _, f := range want {
		wk = append(wk, f.k)
	}
	if strings.Join(gk, ",") != strings.Join(wk, ",") {
		t.Errorf("%s: fields\n got %s\nwant %s\n(reply %s)", where, strings.Join(gk, ","), strings.Join(wk, ","), got)
		return
	}
	for i, f := range want {
		if sub, ok := f.v.(aiObj); ok {
			aiCompare(t, where+"."+f.k, o[i].v, sub)
			continue
		}
		w, _ := json.Marshal(f.v)
		if !sameJSON(o[i].v, w) {
			t.Errorf("%s: %s = %s, want %s", where, f.k, o[i].v, w)
		}
	}
}

// aiImport is one importdescriptors element (desc without checksum).
type aiImport struct {
	desc     string
	label    *string
	internal bool
	active   bool
	rng      *[2]int
	// fails is the error message the import must fail with (code -4);
	// the expected replies are then those of foreign addresses.
	fails string
}

func (im aiImport) request() map[string]any {
	e := map[string]any{"desc": aiCS(im.desc), "timestamp": aiTimestamp}
	if im.label != nil {
		e["label"] = *im.label
	}
	if im.internal {
		e["internal"] = true
	}
	if im.active {
		e["active"] = true
	}
	if im.rng != nil {
		e["range"] = *im.rng
	}
	return e
}

// aiCase is one descriptor type: what to import into the watch-only
// wallet (public keys) and the wallet with private keys, and what
// getaddressinfo must answer in each.
type aiCase struct {
	name string
	// build returns the import and the expected replies for the wallet
	// kind (priv: the wallet with private keys). A nil import skips the
	// kind (a descriptor that needs private keys).
	build func(priv bool) (*aiImport, []aiWant)
}

func aiStr(s string) *string { return &s }

func aiPub(t *testing.T, k aiKeys, name string) []byte {
	t.Helper()
	return aiHex(k.WIF[name].PubKey)
}

// aiXKey is an extended key and its derivations.
type aiXKey struct{ k *hdkeychain.ExtendedKey }

func aiParseX(s string) aiXKey {
	k, err := hdkeychain.NewKeyFromString(s)
	if err != nil {
		panic(err)
	}
	return aiXKey{k}
}

func (x aiXKey) derive(path ...uint32) aiXKey {
	k := x.k
	for _, i := range path {
		var err error
		if k, err = k.Derive(i); err != nil {
			panic(err)
		}
	}
	return aiXKey{k}
}

func (x aiXKey) pub() []byte {
	p, err := x.k.ECPubKey()
	if err != nil {
		panic(err)
	}
	return p.SerializeCompressed()
}

func (x aiXKey) tpub() string {
	n, err := x.k.Neuter()
	if err != nil {
		panic(err)
	}
	return n.String()
}

const aiH = hdkeychain.HardenedKeyStart

func aiUncompressedToCompressed(pub []byte) []byte {
	p, err := btcec.ParsePubKey(pub)
	if err != nil {
		panic(err)
	}
	return p.SerializeCompressed()
}

func aiCases(t *testing.T, k aiKeys) []aiCase {
	pub := func(n string) []byte { return aiPub(t, k, n) }
	hx := func(n string) string { return k.WIF[n].PubKey }
	wif := func(n string) string { return k.WIF[n].WIF }
	xo := func(n string) []byte { return aiHex(k.WIF[n].XOnly) }
	// keyText is a key as written in the import: its hex in the
	// watch-only wallet, its WIF in the wallet with private keys.
	keyText := func(priv bool, n string) string {
		if priv {
			return wif(n)
		}
		return hx(n)
	}
	// tapKey is a taproot key in the parent descriptor: as written for a
	// hex key, x-only for a WIF (Core renders a WIF in tr() x-only).
	tapKey := func(priv bool, n string) string {
		if priv {
			return k.WIF[n].XOnly
		}
		return hx(n)
	}
	fp := func(n string) string { return aiFP(pub(n)) }
	m := func(n string) *aiMeta { return &aiMeta{"m", fp(n)} }

	var cases []aiCase
	add := func(name string, build func(priv bool) (*aiImport, []aiWant)) {
		cases = append(cases, aiCase{name, build})
	}

	add("pkh-label", func(priv bool) (*aiImport, []aiWant) {
		p := pub("k01")
		return &aiImport{desc: "pkh(" + keyText(priv, "k01") + ")", label: aiStr("L1")}, []aiWant{
			{out: aiP2PKH(p), mine: true, desc: "pkh([" + fp("k01") + "]" + hx("k01") + ")", parent: "pkh(" + hx("k01") + ")",
				details: aiPKHDetails(p), meta: m("k01"), labels: []string{"L1"}},
			aiForeign(aiP2WPKH(p)),
		}
	})
	add("pkh-internal", func(priv bool) (*aiImport, []aiWant) {
		p := pub("k02")
		return &aiImport{desc: "pkh(" + keyText(priv, "k02") + ")", internal: true}, []aiWant{
			{out: aiP2PKH(p), mine: true, desc: "pkh([" + fp("k02") + "]" + hx("k02") + ")", parent: "pkh(" + hx("k02") + ")",
				details: aiPKHDetails(p), change: true, meta: m("k02")},
		}
	})
	add("wpkh", func(priv bool) (*aiImport, []aiWant) {
		p := pub("k03")
		return &aiImport{desc: "wpkh(" + keyText(priv, "k03") + ")"}, []aiWant{
			{out: aiP2WPKH(p), mine: true, desc: "wpkh([" + fp("k03") + "]" + hx("k03") + ")", parent: "wpkh(" + hx("k03") + ")",
				details: aiWPKHDetails(p), meta: m("k03"), labels: []string{""}},
			aiForeign(aiP2PKH(p)),
			aiForeign(aiP2SH(aiP2WPKH(p).spk)),
		}
	})
	add("sh-wpkh", func(priv bool) (*aiImport, []aiWant) {
		p := pub("k04")
		return &aiImport{desc: "sh(wpkh(" + keyText(priv, "k04") + "))"}, []aiWant{
			{out: aiP2SH(aiP2WPKH(p).spk), mine: true, desc: "sh(wpkh([" + fp("k04") + "]" + hx("k04") + "))",
				parent: "sh(wpkh(" + hx("k04") + "))", details: aiSHWPKHDetails(p), meta: m("k04"), labels: []string{""}},
			aiForeign(aiP2WPKH(p)),
		}
	})
	add("tr-keypath", func(priv bool) (*aiImport, []aiWant) {
		x := xo("k05")
		return &aiImport{desc: "tr(" + keyText(priv, "k05") + ")", label: aiStr("T")}, []aiWant{
			{out: aiP2TR(aiTapOutput(x, nil)), mine: true, desc: "tr([" + fp("k05") + "]" + hex.EncodeToString(x) + ")",
				parent: "tr(" + tapKey(priv, "k05") + ")", meta: m("k05"), labels: []string{"T"}},
			aiForeign(aiP2TR(x)),
		}
	})
	// k02's key has odd Y: written x-only, its fingerprint hashes 02||x.
	add("tr-xonly-odd", func(priv bool) (*aiImport, []aiWant) {
		x := xo("k02")
		kt := k.WIF["k02"].XOnly
		f := aiFP(x)
		if priv {
			kt, f = wif("k02"), fp("k02")
		}
		return &aiImport{desc: "tr(" + kt + ")"}, []aiWant{
			{out: aiP2TR(aiTapOutput(x, nil)), mine: true, desc: "tr([" + f + "]" + hex.EncodeToString(x) + ")",
				parent: "tr(" + k.WIF["k02"].XOnly + ")", meta: &aiMeta{"m", f}, labels: []string{""}},
		}
	})
	add("tr-tree-pk", func(priv bool) (*aiImport, []aiWant) {
		xk, xa, xb := xo("k06"), xo("k07"), xo("k08")
		root := aiBranch(aiLeafHash(aiPK(xa)), aiLeafHash(aiPK(xb)))
		leafA, leafB := k.WIF["k07"].XOnly, k.WIF["k08"].XOnly
		fa := aiFP(xa)
		if priv {
			leafA, fa = wif("k07"), fp("k07")
		}
		imp := &aiImport{desc: "tr(" + keyText(priv, "k06") + ",{pk(" + leafA + "),pk(" + leafB + ")})"}
		parent := "tr(" + tapKey(priv, "k06") + ",{pk(" + k.WIF["k07"].XOnly + "),pk(" + leafB + ")})"
		// Core infers the tree from its spend data: of two leaves under
		// one branch, the one whose script sorts first is listed first.
		pkA := "pk([" + fa + "]" + hex.EncodeToString(xa) + ")"
		pkB := "pk([" + aiFP(xb) + "]" + hex.EncodeToString(xb) + ")"
		if bytes.Compare(aiPK(xb), aiPK(xa)) < 0 {
			pkA, pkB = pkB, pkA
		}
		return imp, []aiWant{
			{out: aiP2TR(aiTapOutput(xk, root)), mine: true,
				desc:   "tr([" + fp("k06") + "]" + hex.EncodeToString(xk) + ",{" + pkA + "," + pkB + "})",
				parent: parent, labels: []string{""}},
			aiForeign(aiP2TR(aiTapOutput(xk, nil))),
		}
	})
	add("tr-multi_a", func(priv bool) (*aiImport, []aiWant) {
		xk, xa, xb := xo("k09"), xo("k10"), xo("k11")
		leaf := append(append(append(aiPush(xa), 0xac), aiPush(xb)...), 0xba, 0x52, 0x9c)
		kb := hx("k11")
		if priv {
			kb = wif("k11")
		}
		imp := &aiImport{desc: "tr(" + keyText(priv, "k09") + ",multi_a(2," + hx("k10") + "," + kb + "))"}
		bParent := hx("k11")
		if priv {
			bParent = k.WIF["k11"].XOnly
		}
		return imp, []aiWant{
			{out: aiP2TR(aiTapOutput(xk, aiLeafHash(leaf))), mine: true,
				desc: "tr([" + fp("k09") + "]" + hex.EncodeToString(xk) + ",multi_a(2,[" + fp("k10") + "]" + hex.EncodeToString(xa) +
					",[" + fp("k11") + "]" + hex.EncodeToString(xb) + "))",
				parent: "tr(" + tapKey(priv, "k09") + ",multi_a(2," + hx("k10") + "," + bParent + "))", labels: []string{""}},
		}
	})
	add("rawtr", func(priv bool) (*aiImport, []aiWant) {
		x := xo("k12")
		return &aiImport{desc: "rawtr(" + keyText(priv, "k12") + ")", label: aiStr("R")}, []aiWant{
			{out: aiP2TR(x), mine: true, desc: "rawtr([" + fp("k12") + "]" + hex.EncodeToString(x) + ")",
				parent: "rawtr(" + tapKey(priv, "k12") + ")", labels: []string{"R"}},
			aiForeign(aiP2TR(aiTapOutput(x, nil))),
		}
	})
	add("pk", func(priv bool) (*aiImport, []aiWant) {
		p := pub("k13")
		return &aiImport{desc: "pk(" + keyText(priv, "k13") + ")"}, []aiWant{
			aiForeign(aiP2PKH(p)), aiForeign(aiP2WPKH(p)), aiForeign(aiP2SH(aiPK(p))),
		}
	})
	add("combo-compressed", func(priv bool) (*aiImport, []aiWant) {
		p := pub("k14")
		parent := "combo(" + hx("k14") + ")"
		u, _ := btcec.ParsePubKey(p)
		return &aiImport{desc: "combo(" + keyText(priv, "k14") + ")", label: aiStr("C")}, []aiWant{
			{out: aiP2PKH(p), mine: true, desc: "pkh([" + fp("k14") + "]" + hx("k14") + ")", parent: parent,
				details: aiPKHDetails(p), meta: m("k14"), labels: []string{"C"}},
			{out: aiP2WPKH(p), mine: true, desc: "wpkh([" + fp("k14") + "]" + hx("k14") + ")", parent: parent,
				details: aiWPKHDetails(p), meta: m("k14"), labels: []string{"C"}},
			{out: aiP2SH(aiP2WPKH(p).spk), mine: true, desc: "sh(wpkh([" + fp("k14") + "]" + hx("k14") + "))", parent: parent,
				details: aiSHWPKHDetails(p), meta: m("k14"), labels: []string{"C"}},
			aiForeign(aiP2PKH(u.SerializeUncompressed())),
			aiForeign(aiP2TR(aiTapOutput(xo("k14"), nil))),
		}
	})
	add("combo-uncompressed", func(priv bool) (*aiImport, []aiWant) {
		p := pub("u01")
		c := aiUncompressedToCompressed(p)
		return &aiImport{desc: "combo(" + keyText(priv, "u01") + ")", label: aiStr("U")}, []aiWant{
			{out: aiP2PKH(p), mine: true, desc: "pkh([" + fp("u01") + "]" + hx("u01") + ")", parent: "combo(" + hx("u01") + ")",
				details: aiPKHDetails(p), meta: m("u01"), labels: []string{"U"}},
			aiForeign(aiP2PKH(c)), aiForeign(aiP2WPKH(c)), aiForeign(aiP2SH(aiP2WPKH(c).spk)),
		}
	})
	add("pkh-uncompressed", func(priv bool) (*aiImport, []aiWant) {
		p := pub("u02")
		return &aiImport{desc: "pkh(" + keyText(priv, "u02") + ")"}, []aiWant{
			{out: aiP2PKH(p), mine: true, desc: "pkh([" + fp("u02") + "]" + hx("u02") + ")", parent: "pkh(" + hx("u02") + ")",
				details: aiPKHDetails(p), meta: m("u02"), labels: []string{""}},
			aiForeign(aiP2PKH(aiUncompressedToCompressed(p))),
		}
	})
	add("multi-bare", func(priv bool) (*aiImport, []aiWant) {
		return &aiImport{desc: "multi(1," + keyText(priv, "k15") + "," + hx("k16") + ")"}, []aiWant{
			aiForeign(aiP2PKH(pub("k15"))), aiForeign(aiP2PKH(pub("k16"))),
			aiForeign(aiP2SH(aiMulti(1, pub("k15"), pub("k16")))),
			aiForeign(aiP2WSH(aiMulti(1, pub("k15"), pub("k16")))),
		}
	})
	add("sh-multi", func(priv bool) (*aiImport, []aiWant) {
		a, b, c := pub("k17"), pub("k18"), pub("k19")
		return &aiImport{desc: "sh(multi(2," + keyText(priv, "k17") + "," + hx("k18") + "," + keyText(priv, "k19") + "))", label: aiStr("M")}, []aiWant{
			{out: aiP2SH(aiMulti(2, a, b, c)), mine: true,
				desc:    "sh(multi(2,[" + fp("k17") + "]" + hx("k17") + ",[" + fp("k18") + "]" + hx("k18") + ",[" + fp("k19") + "]" + hx("k19") + "))",
				parent:  "sh(multi(2," + hx("k17") + "," + hx("k18") + "," + hx("k19") + "))",
				details: aiMultiDetails(2, a, b, c), labels: []string{"M"}},
			aiForeign(aiP2PKH(a)),
			aiForeign(aiP2WSH(aiMulti(2, a, b, c))),
		}
	})
	add("sh-sortedmulti", func(priv bool) (*aiImport, []aiWant) {
		keys := []string{"k20", "k21", "k22"}
		sorted := append([]string(nil), keys...)
		sort.Slice(sorted, func(i, j int) bool { return hx(sorted[i]) < hx(sorted[j]) })
		var ps [][]byte
		var dk []string
		for _, n := range sorted {
			ps = append(ps, pub(n))
			dk = append(dk, "["+fp(n)+"]"+hx(n))
		}
		return &aiImport{desc: "sh(sortedmulti(1," + keyText(priv, keys[0]) + "," + hx(keys[1]) + "," + hx(keys[2]) + "))"}, []aiWant{
			{out: aiP2SH(aiMulti(1, ps...)), mine: true, desc: "sh(multi(1," + strings.Join(dk, ",") + "))",
				parent:  "sh(sortedmulti(1," + hx(keys[0]) + "," + hx(keys[1]) + "," + hx(keys[2]) + "))",
				details: aiMultiDetails(1, ps...), labels: []string{""}},
		}
	})
	add("wsh-multi", func(priv bool) (*aiImport, []aiWant) {
		a, b := pub("k23"), pub("k24")
		return &aiImport{desc: "wsh(multi(1," + keyText(priv, "k23") + "," + hx("k24") + "))"}, []aiWant{
			{out: aiP2WSH(aiMulti(1, a, b)), mine: true, desc: "wsh(multi(1,[" + fp("k23") + "]" + hx("k23") + ",[" + fp("k24") + "]" + hx("k24") + "))",
				parent: "wsh(multi(1," + hx("k23") + "," + hx("k24") + "))", details: aiMultiDetails(1, a, b), labels: []string{""}},
			aiForeign(aiP2SH(aiP2WSH(aiMulti(1, a, b)).spk)),
		}
	})
	add("sh-wsh-multi", func(priv bool) (*aiImport, []aiWant) {
		a, b := pub("k01"), pub("k02")
		return &aiImport{desc: "sh(wsh(multi(2," + hx("k01") + "," + keyText(priv, "k02") + ")))", label: aiStr("SW")}, []aiWant{
			{out: aiP2SH(aiP2WSH(aiMulti(2, a, b)).spk), mine: true,
				desc:    "sh(wsh(multi(2,[" + fp("k01") + "]" + hx("k01") + ",[" + fp("k02") + "]" + hx("k02") + ")))",
				parent:  "sh(wsh(multi(2," + hx("k01") + "," + hx("k02") + ")))",
				details: aiSHWSHMultiDetails(2, a, b), labels: []string{"SW"}},
			aiForeign(aiP2WSH(aiMulti(2, a, b))),
		}
	})
	add("wsh-pk", func(priv bool) (*aiImport, []aiWant) {
		p := pub("k03")
		return &aiImport{desc: "wsh(pk(" + keyText(priv, "k03") + "))"}, []aiWant{
			{out: aiP2WSH(aiPK(p)), mine: true, desc: "wsh(pk([" + fp("k03") + "]" + hx("k03") + "))", parent: "wsh(pk(" + hx("k03") + "))",
				details: aiObj{{"script", "pubkey"}, {"hex", hex.EncodeToString(aiPK(p))}}, labels: []string{""}},
			aiForeign(aiP2PKH(p)),
		}
	})
	add("sh-pk-uncompressed", func(priv bool) (*aiImport, []aiWant) {
		p := pub("u03")
		return &aiImport{desc: "sh(pk(" + keyText(priv, "u03") + "))"}, []aiWant{
			{out: aiP2SH(aiPK(p)), mine: true, desc: "sh(pk([" + fp("u03") + "]" + hx("u03") + "))", parent: "sh(pk(" + hx("u03") + "))",
				details: aiObj{{"script", "pubkey"}, {"hex", hex.EncodeToString(aiPK(p))}}, labels: []string{""}},
		}
	})
	add("wsh-miniscript", func(priv bool) (*aiImport, []aiWant) {
		a, b := pub("k05"), pub("k06")
		// or_d(pk(A),and_v(v:pk(B),older(144)))
		s := append(aiPK(a), 0x73, 0x64)
		s = append(s, aiPush(b)...)
		s = append(s, 0xad, 0x02, 0x90, 0x00, 0xb2, 0x68)
		body := func(ka, kb string) string { return "or_d(pk(" + ka + "),and_v(v:pk(" + kb + "),older(144)))" }
		return &aiImport{desc: "wsh(" + body(keyText(priv, "k05"), hx("k06")) + ")"}, []aiWant{
			{out: aiP2WSH(s), mine: true, desc: "wsh(" + body("["+fp("k05")+"]"+hx("k05"), "["+fp("k06")+"]"+hx("k06")) + ")",
				parent: "wsh(" + body(hx("k05"), hx("k06")) + ")", details: aiObj{{"script", "nonstandard"}, {"hex", hex.EncodeToString(s)}},
				labels: []string{""}},
		}
	})
	addrOnly := func(name string, out func() aiOut, inferred func() string) {
		add(name, func(priv bool) (*aiImport, []aiWant) {
			o := out()
			d := "addr(" + o.addr + ")"
			if strings.HasPrefix(name, "raw") {
				d = "raw(" + hex.EncodeToString(o.spk) + ")"
			}
			if priv {
				// addr() and raw() have no private keys to import.
				return &aiImport{desc: d, label: aiStr("W"),
					fails: "Cannot import descriptor without private keys to a wallet with private keys enabled"}, []aiWant{aiForeign(o)}
			}
			return &aiImport{desc: d, label: aiStr("W")}, []aiWant{
				{out: o, mine: true, desc: inferred(), parent: d, labels: []string{"W"}},
			}
		})
	}
	none := func() string { return "" }
	addrOnly("addr-p2pkh", func() aiOut { return aiP2PKH(pub("k07")) }, none)
	addrOnly("addr-p2sh", func() aiOut { return aiP2SH(aiPK(pub("k08"))) }, none)
	addrOnly("addr-p2wpkh", func() aiOut { return aiP2WPKH(pub("k09")) }, none)
	addrOnly("addr-p2wsh", func() aiOut { return aiP2WSH(aiPK(pub("k10"))) }, none)
	addrOnly("addr-p2tr", func() aiOut { return aiP2TR(xo("k11")) }, func() string { return "rawtr(" + k.WIF["k11"].XOnly + ")" })
	addrOnly("raw-p2wpkh", func() aiOut { return aiP2WPKH(pub("k12")) }, none)
	addrOnly("raw-p2pkh", func() aiOut { return aiP2PKH(pub("k13")) }, none)
	addrOnly("addr-witness-v2", func() aiOut {
		prog := aiHash160(pub("k14"))
		data, _ := bech32.ConvertBits(prog, 8, 5, true)
		a, _ := bech32.EncodeM(aiNet.Bech32HRPSegwit, append([]byte{2}, data...))
		return aiOut{a, append([]byte{0x52, 0x14}, prog...)}
	}, none)

	// Ranged xpub with origin: the watch-only wallet imports the account
	// tpub, the wallet with private keys the master tprv with the
	// hardened account path; both store the same public descriptor.
	add("wpkh-xpub-origin", func(priv bool) (*aiImport, []aiWant) {
		master := aiParseX(k.BIP32["t03"].TPrv)
		mfp := aiFP(master.pub())
		acct := master.derive(84+aiH, 1+aiH, 0+aiH)
		parent := "wpkh([" + mfp + "/84h/1h/0h]" + acct.tpub() + "/0/*)"
		d := parent
		if priv {
			d = "wpkh(" + k.BIP32["t03"].TPrv + "/84h/1h/0h/0/*)"
		}
		var ws []aiWant
		for _, i := range []uint32{0, 1, 7, 999} {
			p := acct.derive(0, i).pub()
			ws = append(ws, aiWant{out: aiP2WPKH(p), mine: true,
				desc:   fmt.Sprintf("wpkh([%s/84h/1h/0h/0/%d]%x)", mfp, i, p),
				parent: parent, details: aiWPKHDetails(p), change: true,
				meta: &aiMeta{fmt.Sprintf("m/84h/1h/0h/0/%d", i), mfp}})
		}
		ws = append(ws, aiForeign(aiP2WPKH(acct.derive(0, 1000).pub())), aiForeign(aiP2WPKH(acct.derive(1, 0).pub())))
		return &aiImport{desc: d, rng: &[2]int{0, 5}}, ws
	})
	// An xpub without origin: the fingerprint is the xpub's own key's.
	add("pkh-xpub-no-origin", func(priv bool) (*aiImport, []aiWant) {
		x := aiParseX(k.BIP32["t04"].TPrv)
		xfp := aiFP(x.pub())
		parent := "pkh(" + x.tpub() + "/1/*)"
		d := parent
		if priv {
			d = "pkh(" + k.BIP32["t04"].TPrv + "/1/*)"
		}
		var ws []aiWant
		for _, i := range []uint32{0, 3} {
			p := x.derive(1, i).pub()
			ws = append(ws, aiWant{out: aiP2PKH(p), mine: true, desc: fmt.Sprintf("pkh([%s/1/%d]%x)", xfp, i, p),
				parent: parent, details: aiPKHDetails(p), change: true, meta: &aiMeta{fmt.Sprintf("m/1/%d", i), xfp}})
		}
		return &aiImport{desc: d, rng: &[2]int{0, 3}}, ws
	})
	// Hardened derivation after the wildcard needs the private key.
	add("wpkh-xprv-hardened", func(priv bool) (*aiImport, []aiWant) {
		if !priv {
			return nil, nil
		}
		master := aiParseX(k.BIP32["t05"].TPrv)
		mfp := aiFP(master.pub())
		parent := "wpkh(" + master.tpub() + "/0h/*h)"
		var ws []aiWant
		for _, i := range []uint32{0, 2} {
			p := master.derive(aiH, i+aiH).pub()
			ws = append(ws, aiWant{out: aiP2WPKH(p), mine: true, desc: fmt.Sprintf("wpkh([%s/0h/%dh]%x)", mfp, i, p),
				parent: parent, details: aiWPKHDetails(p), change: true, meta: &aiMeta{fmt.Sprintf("m/0h/%dh", i), mfp}})
		}
		return &aiImport{desc: "wpkh(" + k.BIP32["t05"].TPrv + "/0h/*h)", rng: &[2]int{0, 2}}, ws
	})
	add("tr-xpub-active", func(priv bool) (*aiImport, []aiWant) {
		master := aiParseX(k.BIP32["t06"].TPrv)
		mfp := aiFP(master.pub())
		acct := master.derive(86+aiH, 1+aiH, 0+aiH)
		parent := "tr([" + mfp + "/86h/1h/0h]" + acct.tpub() + "/0/*)"
		d := parent
		if priv {
			d = "tr(" + k.BIP32["t06"].TPrv + "/86'/1'/0'/0/*)"
		}
		var ws []aiWant
		for _, i := range []uint32{0, 4} {
			p := acct.derive(0, i).pub()
			x := p[1:]
			ws = append(ws, aiWant{out: aiP2TR(aiTapOutput(x, nil)), mine: true, desc: fmt.Sprintf("tr([%s/86h/1h/0h/0/%d]%x)", mfp, i, x),
				parent: parent, change: true, meta: &aiMeta{fmt.Sprintf("m/86h/1h/0h/0/%d", i), mfp}})
		}
		return &aiImport{desc: d, rng: &[2]int{0, 4}, active: true}, ws
	})
	add("tr-xpub-tree", func(priv bool) (*aiImport, []aiWant) {
		a, b := aiParseX(k.BIP32["t07"].TPrv), aiParseX(k.BIP32["t08"].TPrv)
		fa, fb := aiFP(a.pub()), aiFP(b.pub())
		parent := "tr(" + a.tpub() + "/0/*,pk(" + b.tpub() + "/0/*))"
		d := parent
		if priv {
			d = "tr(" + k.BIP32["t07"].TPrv + "/0/*,pk(" + b.tpub() + "/0/*))"
		}
		var ws []aiWant
		for _, i := range []uint32{0, 2} {
			xa, xb := a.derive(0, i).pub()[1:], b.derive(0, i).pub()[1:]
			ws = append(ws, aiWant{out: aiP2TR(aiTapOutput(xa, aiLeafHash(aiPK(xb)))), mine: true,
				desc:   fmt.Sprintf("tr([%s/0/%d]%x,pk([%s/0/%d]%x))", fa, i, xa, fb, i, xb),
				parent: parent, change: true})
		}
		return &aiImport{desc: d, rng: &[2]int{0, 2}}, ws
	})
	add("wsh-sortedmulti-xpub", func(priv bool) (*aiImport, []aiWant) {
		a, b := aiParseX(k.BIP32["t01"].TPrv), aiParseX(k.BIP32["t02"].TPrv)
		fa, fb := aiFP(a.pub()), aiFP(b.pub())
		parent := "wsh(sortedmulti(2," + a.tpub() + "/0/*," + b.tpub() + "/0/*))"
		d := parent
		if priv {
			d = "wsh(sortedmulti(2," + k.BIP32["t01"].TPrv + "/0/*," + b.tpub() + "/0/*))"
		}
		var ws []aiWant
		for _, i := range []uint32{0, 1, 5} {
			ka := aiKV{fmt.Sprintf("[%s/0/%d]", fa, i), a.derive(0, i).pub()}
			kb := aiKV{fmt.Sprintf("[%s/0/%d]", fb, i), b.derive(0, i).pub()}
			ks := []aiKV{ka, kb}
			sort.Slice(ks, func(x, y int) bool { return bytes.Compare(ks[x].v.([]byte), ks[y].v.([]byte)) < 0 })
			k0, k1 := ks[0].v.([]byte), ks[1].v.([]byte)
			ws = append(ws, aiWant{out: aiP2WSH(aiMulti(2, k0, k1)), mine: true,
				desc:   fmt.Sprintf("wsh(multi(2,%s%x,%s%x))", ks[0].k, k0, ks[1].k, k1),
				parent: parent, details: aiMultiDetails(2, k0, k1), change: true})
		}
		return &aiImport{desc: d, rng: &[2]int{0, 5}, active: true}, ws
	})
	add("wsh-pkh", func(priv bool) (*aiImport, []aiWant) {
		p := pub("k15")
		in := aiP2PKH(p)
		emb := append(aiKind(in.spk), aiPKHDetails(p)...)
		emb = append(emb, aiKV{"address", in.addr}, aiKV{"scriptPubKey", hex.EncodeToString(in.spk)})
		return &aiImport{desc: "wsh(pkh(" + keyText(priv, "k15") + "))"}, []aiWant{
			{out: aiP2WSH(in.spk), mine: true, desc: "wsh(pkh([" + fp("k15") + "]" + hx("k15") + "))", parent: "wsh(pkh(" + hx("k15") + "))",
				details: aiObj{{"script", "pubkeyhash"}, {"hex", hex.EncodeToString(in.spk)}, {"pubkey", hx("k15")}, {"embedded", emb}},
				labels:  []string{""}},
			aiForeign(in),
		}
	})
	add("sh-wsh-pk", func(priv bool) (*aiImport, []aiWant) {
		p := pub("k16")
		in := aiP2WSH(aiPK(p))
		emb := append(aiKind(in.spk), aiKV{"script", "pubkey"}, aiKV{"hex", hex.EncodeToString(aiPK(p))},
			aiKV{"address", in.addr}, aiKV{"scriptPubKey", hex.EncodeToString(in.spk)})
		return &aiImport{desc: "sh(wsh(pk(" + keyText(priv, "k16") + ")))"}, []aiWant{
			{out: aiP2SH(in.spk), mine: true, desc: "sh(wsh(pk([" + fp("k16") + "]" + hx("k16") + ")))", parent: "sh(wsh(pk(" + hx("k16") + ")))",
				details: aiObj{{"script", "witness_v0_scripthash"}, {"hex", hex.EncodeToString(in.spk)}, {"embedded", emb}},
				labels:  []string{""}},
		}
	})
	add("tr-nested-tree", func(priv bool) (*aiImport, []aiWant) {
		xk, xa, xb, xc := xo("k17"), xo("k18"), xo("k19"), xo("k20")
		root := aiBranch(aiLeafHash(aiPK(xa)), aiBranch(aiLeafHash(aiPK(xb)), aiLeafHash(aiPK(xc))))
		kc := hx("k20")
		if priv {
			kc = wif("k20")
		}
		cParent := hx("k20")
		if priv {
			cParent = k.WIF["k20"].XOnly
		}
		ok := func(n string, x []byte) string { return "[" + fp(n) + "]" + hex.EncodeToString(x) }
		// Core infers the tree from its spend data, placing leaves in the
		// order of their scripts: the branch holding the smallest script
		// comes first, and so does the smaller of two sibling leaves.
		pa, pb, pc := "pk("+ok("k18", xa)+")", "pk("+ok("k19", xb)+")", "pk("+ok("k20", xc)+")"
		sb, sc := aiPK(xb), aiPK(xc)
		if bytes.Compare(sc, sb) < 0 {
			pb, pc, sb = pc, pb, sc
		}
		tree := "{" + pa + ",{" + pb + "," + pc + "}}"
		if bytes.Compare(sb, aiPK(xa)) < 0 {
			tree = "{{" + pb + "," + pc + "}," + pa + "}"
		}
		return &aiImport{desc: "tr(" + keyText(priv, "k17") + ",{pk(" + hx("k18") + "),{pk(" + hx("k19") + "),pk(" + kc + ")}})"}, []aiWant{
			{out: aiP2TR(aiTapOutput(xk, root)), mine: true,
				desc:   "tr(" + ok("k17", xk) + "," + tree + ")",
				parent: "tr(" + tapKey(priv, "k17") + ",{pk(" + hx("k18") + "),{pk(" + hx("k19") + "),pk(" + cParent + ")}})", labels: []string{""}},
		}
	})
	add("tr-sortedmulti_a", func(priv bool) (*aiImport, []aiWant) {
		names := []string{"k21", "k22", "k23"}
		sorted := append([]string(nil), names...)
		sort.Slice(sorted, func(i, j int) bool { return k.WIF[sorted[i]].XOnly < k.WIF[sorted[j]].XOnly })
		var leaf []byte
		var dk []string
		for i, n := range sorted {
			leaf = append(leaf, aiPush(xo(n))...)
			if i == 0 {
				leaf = append(leaf, 0xac)
			} else {
				leaf = append(leaf, 0xba)
			}
			dk = append(dk, "["+fp(n)+"]"+k.WIF[n].XOnly)
		}
		leaf = append(leaf, 0x52, 0x9c)
		xk := xo("k24")
		return &aiImport{desc: "tr(" + keyText(priv, "k24") + ",sortedmulti_a(2," + hx(names[0]) + "," + hx(names[1]) + "," + keyText(priv, names[2]) + "))"}, []aiWant{
			{out: aiP2TR(aiTapOutput(xk, aiLeafHash(leaf))), mine: true,
				desc: "tr([" + fp("k24") + "]" + hex.EncodeToString(xk) + ",multi_a(2," + strings.Join(dk, ",") + "))",
				parent: "tr(" + tapKey(priv, "k24") + ",sortedmulti_a(2," + hx(names[0]) + "," + hx(names[1]) + "," +
					tapKey(priv, names[2]) + "))", labels: []string{""}},
		}
	})
	add("tr-miniscript-leaf", func(priv bool) (*aiImport, []aiWant) {
		xk, xa := xo("k01"), xo("k02")
		leaf := append(append(aiPush(xa), 0xad), 0x5a, 0xb2)
		ka := k.WIF["k02"].XOnly
		fa := aiFP(xa)
		if priv {
			ka, fa = wif("k02"), fp("k02")
		}
		return &aiImport{desc: "tr(" + keyText(priv, "k01") + ",and_v(v:pk(" + ka + "),older(10)))"}, []aiWant{
			{out: aiP2TR(aiTapOutput(xk, aiLeafHash(leaf))), mine: true,
				desc:   "tr([" + fp("k01") + "]" + hex.EncodeToString(xk) + ",and_v(v:pk([" + fa + "]" + hex.EncodeToString(xa) + "),older(10)))",
				parent: "tr(" + tapKey(priv, "k01") + ",and_v(v:pk(" + k.WIF["k02"].XOnly + "),older(10)))", labels: []string{""}},
		}
	})
	add("wpkh-multipath", func(priv bool) (*aiImport, []aiWant) {
		x := aiParseX(k.BIP32["t02"].TPrv)
		xfp := aiFP(x.pub())
		d := "wpkh(" + x.tpub() + "/<0;1>/*)"
		if priv {
			d = "wpkh(" + k.BIP32["t02"].TPrv + "/<0;1>/*)"
		}
		var ws []aiWant
		for _, br := range []uint32{0, 1} {
			for _, i := range []uint32{0, 9} {
				p := x.derive(br, i).pub()
				ws = append(ws, aiWant{out: aiP2WPKH(p), mine: true, desc: fmt.Sprintf("wpkh([%s/%d/%d]%x)", xfp, br, i, p),
					parent: fmt.Sprintf("wpkh(%s/%d/*)", x.tpub(), br), details: aiWPKHDetails(p), change: true,
					meta: &aiMeta{fmt.Sprintf("m/%d/%d", br, i), xfp}})
			}
		}
		ws = append(ws, aiForeign(aiP2WPKH(x.derive(2, 0).pub())))
		return &aiImport{desc: d, rng: &[2]int{0, 9}}, ws
	})
	add("sh-wsh-pkh", func(priv bool) (*aiImport, []aiWant) {
		p := pub("k18")
		in := aiP2PKH(p)
		mid := aiP2WSH(in.spk)
		inner := append(aiKind(in.spk), aiPKHDetails(p)...)
		inner = append(inner, aiKV{"address", in.addr}, aiKV{"scriptPubKey", hex.EncodeToString(in.spk)})
		emb := append(aiKind(mid.spk), aiKV{"script", "pubkeyhash"}, aiKV{"hex", hex.EncodeToString(in.spk)}, aiKV{"pubkey", hx("k18")},
			aiKV{"embedded", inner}, aiKV{"address", mid.addr}, aiKV{"scriptPubKey", hex.EncodeToString(mid.spk)})
		return &aiImport{desc: "sh(wsh(pkh(" + keyText(priv, "k18") + ")))"}, []aiWant{
			{out: aiP2SH(mid.spk), mine: true, desc: "sh(wsh(pkh([" + fp("k18") + "]" + hx("k18") + ")))", parent: "sh(wsh(pkh(" + hx("k18") + ")))",
				details: aiObj{{"script", "witness_v0_scripthash"}, {"hex", hex.EncodeToString(mid.spk)}, {"pubkey", hx("k18")}, {"embedded", emb}},
				labels:  []string{""}},
		}
	})
	add("pkh-plain-key-origin", func(priv bool) (*aiImport, []aiWant) {
		p := pub("k19")
		origin := "[d34db33f/44h/1h/0h]"
		if priv {
			origin = "[d34db33f/44'/1h/0']" // apostrophes come back as h
		}
		return &aiImport{desc: "pkh(" + origin + keyText(priv, "k19") + ")"}, []aiWant{
			{out: aiP2PKH(p), mine: true, desc: "pkh([d34db33f/44h/1h/0h]" + hx("k19") + ")", parent: "pkh([d34db33f/44h/1h/0h]" + hx("k19") + ")",
				details: aiPKHDetails(p), meta: &aiMeta{"m/44h/1h/0h", "d34db33f"}, labels: []string{""}},
		}
	})
	add("wsh-multi-17-of-20", func(priv bool) (*aiImport, []aiWant) {
		var ps [][]byte
		var dk, pk, ik []string
		for i := 1; i <= 20; i++ {
			nm := fmt.Sprintf("k%02d", i)
			ps = append(ps, pub(nm))
			dk = append(dk, "["+fp(nm)+"]"+hx(nm))
			pk = append(pk, hx(nm))
			if priv && i%2 == 0 {
				ik = append(ik, wif(nm))
			} else {
				ik = append(ik, hx(nm))
			}
		}
		return &aiImport{desc: "wsh(multi(17," + strings.Join(ik, ",") + "))"}, []aiWant{
			{out: aiP2WSH(aiMulti(17, ps...)), mine: true, desc: "wsh(multi(17," + strings.Join(dk, ",") + "))",
				parent: "wsh(multi(17," + strings.Join(pk, ",") + "))", details: aiMultiDetails(17, ps...), labels: []string{""}},
		}
	})
	add("raw-p2tr", func(priv bool) (*aiImport, []aiWant) {
		o := aiP2TR(xo("k21"))
		d := "raw(" + hex.EncodeToString(o.spk) + ")"
		if priv {
			return &aiImport{desc: d, fails: "Cannot import descriptor without private keys to a wallet with private keys enabled"}, []aiWant{aiForeign(o)}
		}
		return &aiImport{desc: d}, []aiWant{{out: o, mine: true, desc: "rawtr(" + k.WIF["k21"].XOnly + ")", parent: d, labels: []string{""}}}
	})
	// An xprv with an origin and hardened steps: the stored public form
	// starts at the last hardened key (unhardened wildcard) or keeps the
	// master key (hardened wildcard).
	add("wpkh-xprv-origin-hardened", func(priv bool) (*aiImport, []aiWant) {
		if !priv {
			return nil, nil
		}
		x := aiParseX(k.BIP32["t07"].TPrv)
		c := x.derive(2 + aiH)
		parent := "wpkh([aabbccdd/1h/2h]" + c.tpub() + "/*)"
		var ws []aiWant
		for _, i := range []uint32{0, 3} {
			p := c.derive(i).pub()
			ws = append(ws, aiWant{out: aiP2WPKH(p), mine: true, desc: fmt.Sprintf("wpkh([aabbccdd/1h/2h/%d]%x)", i, p),
				parent: parent, details: aiWPKHDetails(p), change: true, meta: &aiMeta{fmt.Sprintf("m/1h/2h/%d", i), "aabbccdd"}})
		}
		return &aiImport{desc: "wpkh([aabbccdd/1h]" + k.BIP32["t07"].TPrv + "/2h/*)", rng: &[2]int{0, 3}}, ws
	})
	add("sh-wpkh-xprv-origin-hardened-wildcard", func(priv bool) (*aiImport, []aiWant) {
		if !priv {
			return nil, nil
		}
		x := aiParseX(k.BIP32["t08"].TPrv)
		parent := "sh(wpkh([aabbccdd/1h]" + x.tpub() + "/2h/*h))"
		var ws []aiWant
		for _, i := range []uint32{0, 3} {
			p := x.derive(2+aiH, i+aiH).pub()
			ws = append(ws, aiWant{out: aiP2SH(aiP2WPKH(p).spk), mine: true, desc: fmt.Sprintf("sh(wpkh([aabbccdd/1h/2h/%dh]%x))", i, p),
				parent: parent, details: aiSHWPKHDetails(p), change: true, meta: &aiMeta{fmt.Sprintf("m/1h/2h/%dh", i), "aabbccdd"}})
		}
		return &aiImport{desc: "sh(wpkh([aabbccdd/1h]" + k.BIP32["t08"].TPrv + "/2h/*h))", rng: &[2]int{0, 3}}, ws
	})
	return cases
}

// aiSetup creates a node with a blank watch-only wallet and a blank
// wallet with private keys.
func aiSetup(t *testing.T) *walletNode {
	t.Helper()
	n := newWalletNode(t, t.TempDir())
	t.Cleanup(func() { n.mgr.Close() })
	return n
}

func aiCreate(t *testing.T, n *walletNode, name string, priv bool) string {
	t.Helper()
	p, _ := json.Marshal([]any{name, !priv, true})
	var created struct{ Name string }
	mustResult(t, n.call(t, "/", "createwallet", p), "createwallet "+name, &created)
	return walletPath(&name)
}

func aiImportOne(t *testing.T, n *walletNode, path string, im aiImport) {
	t.Helper()
	p, _ := json.Marshal([]any{[]any{im.request()}})
	r := n.call(t, path, "importdescriptors", p)
	var res []struct {
		Success bool            `json:"success"`
		Error   json.RawMessage `json:"error"`
	}
	mustResult(t, r, "importdescriptors", &res)
	if im.fails != "" {
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if len(res) != 1 || res[0].Success || json.Unmarshal(res[0].Error, &e) != nil || e.Code != -4 || e.Message != im.fails {
			t.Fatalf("import of %s: got %s, want -4 %q", im.desc, r.Result, im.fails)
		}
		return
	}
	if len(res) != 1 || !res[0].Success {
		t.Fatalf("import of %s failed: %s", im.desc, r.Result)
	}
}

func aiInfo(t *testing.T, n *walletNode, path, addr string) []byte {
	t.Helper()
	p, _ := json.Marshal([]string{addr})
	r := n.call(t, path, "getaddressinfo", p)
	if r.Error != nil {
		t.Fatalf("getaddressinfo %s: %d %s", addr, r.Error.Code, r.Error.Message)
	}
	return r.Result
}

// TestAddressInfoChecksum checks the test's own checksum against recorded
// descriptors.
func TestAddressInfoChecksum(t *testing.T) {
	for _, d := range []string{
		"wpkh(cPt39s2tUHwXgtaGjhND9vwv5noj1xSNw3h9iVJ3iu6srpN3wriW)#9sethpyk",
		"tr([0ecf3261/86h/1h/0h]tpubDDA9wporpmfuqdjZBpbo6mQzt9zKBnfnVgB2F4w3Xd9F3bDobcLxhNn1dBefZohu98JM1L5nTnFEmbwAb2nnrQ7KDqE8DcsUW7TZMcb4Hv2/0/*)#wc0d892n",
		"wsh(pk([259d7b52]022640f26c4c05cf1528e99444b9e56704a636dd27148702b6365b6225cdb048f4))#yr22xsvt",
	} {
		if got := aiCS(d[:len(d)-9]); got != d {
			t.Errorf("checksum of %s: got %s", d[:len(d)-9], got)
		}
	}
}

// TestAddressInfoDescriptorTypes imports every descriptor type of spec
// (e.8) into a blank watch-only wallet (public keys) and a blank wallet
// with private keys, and checks getaddressinfo's reply for the derived
// addresses and for neighbouring addresses that are not the wallet's,
// field by field and in order.
func TestAddressInfoDescriptorTypes(t *testing.T) {
	t.Parallel() // its own node, many wallets: beside the chain tests
	keys := loadAIKeys(t)
	n := newWalletNode(t, t.TempDir())
	type check struct {
		name, path, caseName string
		want                 aiWant
	}
	var checks []check
	ran := 0
	for i, c := range aiCases(t, keys) {
		for _, priv := range []bool{false, true} {
			kind := "watch"
			if priv {
				kind = "hot"
			}
			t.Run(c.name+"/"+kind, func(t *testing.T) {
				ran++
				im, wants := c.build(priv)
				if im == nil {
					return
				}
				path := aiCreate(t, n, fmt.Sprintf("%s%d", kind, i), priv)
				aiImportOne(t, n, path, *im)
				for _, w := range wants {
					aiCompare(t, w.out.addr, aiInfo(t, n, path, w.out.addr), w.obj())
					checks = append(checks, check{fmt.Sprintf("%s%d", kind, i), path, c.name, w})
				}
			})
		}
	}

	// A restart gives the same answers.
	n.mgr.Close()
	n = newWalletNode(t, n.dir)
	defer n.mgr.Close()
	loaded := map[string]bool{}
	for _, c := range checks {
		if !loaded[c.name] {
			loaded[c.name] = true
			p, _ := json.Marshal([]string{c.name})
			var res struct{ Name string }
			mustResult(t, n.call(t, "/", "loadwallet", p), "loadwallet "+c.name, &res)
		}
		aiCompare(t, "after restart "+c.name+" "+c.want.out.addr, aiInfo(t, n, c.path, c.want.out.addr), c.want.obj())
	}
	if ran == 2*len(aiCases(t, keys)) && len(checks) < 100 {
		t.Errorf("only %d addresses checked", len(checks))
	}

	// Encrypting (and so locking) a wallet with private keys changes no
	// answer.
	encrypted := map[string]bool{}
	for _, c := range checks {
		// The key derivation is slow: the wallets of hardened
		// derivations and a few others suffice.
		if !strings.HasPrefix(c.name, "hot") || !strings.Contains(c.caseName, "xprv") && !strings.HasPrefix(c.caseName, "tr-xpub") && c.caseName != "tr-keypath" {
			continue
		}
		if !encrypted[c.name] {
			encrypted[c.name] = true
			var msg string
			aiCall(t, n, c.path, "encryptwallet", &msg, "pw")
		}
		aiCompare(t, "encrypted "+c.name+" "+c.want.out.addr, aiInfo(t, n, c.path, c.want.out.addr), c.want.obj())
	}
}

// aiBech32 encodes a witness address from a version and a program (or raw
// 5-bit data when prog is nil), with either checksum.
func aiBech32(t *testing.T, hrp string, m bool, version byte, prog []byte, data5 []byte) string {
	t.Helper()
	data := data5
	if prog != nil {
		conv, err := bech32.ConvertBits(prog, 8, 5, true)
		if err != nil {
			t.Fatal(err)
		}
		data = append([]byte{version}, conv...)
	}
	var s string
	var err error
	if m {
		s, err = bech32.EncodeM(hrp, data)
	} else {
		s, err = bech32.Encode(hrp, data)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// aiFlip changes the character at i of a Bech32 string to another
// character of the charset.
func aiFlip(s string, i int) string {
	c := "q"
	if s[i] == 'q' {
		c = "p"
	}
	return s[:i] + c + s[i+1:]
}

// TestAddressInfoForeignAndInvalid checks addresses of every kind that
// are not the wallet's (only the non-wallet fields, c.3) and every
// invalid-address message of c.2, in both kinds of wallet.
func TestAddressInfoForeignAndInvalid(t *testing.T) {
	keys := loadAIKeys(t)
	n := aiSetup(t)
	p := aiHex(keys.WIF["k01"].PubKey)
	x := aiHex(keys.WIF["k01"].XOnly)
	h := aiHash160(p)
	hrp := aiNet.Bech32HRPSegwit

	foreign := []aiOut{
		aiP2PKH(p), aiP2SH(aiPK(p)), aiP2WPKH(p), aiP2WSH(aiPK(p)), aiP2TR(x),
		{"bcrt1pfeesnyr2tx", []byte{0x51, 0x02, 0x4e, 0x73}},
		{aiBech32(t, hrp, true, 1, h, nil), append([]byte{0x51, 0x14}, h...)},
		{aiBech32(t, hrp, true, 2, h, nil), append([]byte{0x52, 0x14}, h...)},
		{aiBech32(t, hrp, true, 16, h[:2], nil), append([]byte{0x60, 0x02}, h[:2]...)},
		{aiBech32(t, hrp, true, 3, append(h, h...)[:40], nil), append([]byte{0x53, 40}, append(h, h...)[:40]...)},
	}

	v0 := aiBech32(t, hrp, false, 0, h, nil)
	v1 := aiBech32(t, hrp, true, 1, x, nil)
	p2pkh := aiP2PKH(p).addr
	badPad, _ := bech32.ConvertBits(append(x, 0), 8, 5, true) // 33 bytes: 53 groups
	badPad = append([]byte{0}, badPad[:52]...)
	badPad[52] |= 1
	invalid := []struct{ addr, msg string }{
		{"", "Invalid checksum or length of Base58 address (P2PKH or P2SH)"},
		{"1111111111", "Invalid checksum or length of Base58 address (P2PKH or P2SH)"},
		{p2pkh[:len(p2pkh)-1] + map[bool]string{true: "2", false: "1"}[p2pkh[len(p2pkh)-1] == '1'], "Invalid checksum or length of Base58 address (P2PKH or P2SH)"},
		{base58.CheckEncode(append(h, 0), aiNet.PubKeyHashAddrID), "Invalid checksum or length of Base58 address (P2PKH or P2SH)"},
		{base58.CheckEncode(h[:19], aiNet.PubKeyHashAddrID), "Invalid length for Base58 address (P2PKH or P2SH)"},
		{base58.CheckEncode(h[:19], aiNet.ScriptHashAddrID), "Invalid length for Base58 address (P2PKH or P2SH)"},
		{base58.CheckEncode(h, chaincfg.MainNetParams.PubKeyHashAddrID), "Invalid or unsupported Base58-encoded address."},
		{base58.CheckEncode(h, chaincfg.MainNetParams.ScriptHashAddrID), "Invalid or unsupported Base58-encoded address."},
		{"0OIl", "Invalid or unsupported Segwit (Bech32) or Base58 encoding."},
		{aiBech32(t, "tb", false, 0, h, nil), "Invalid or unsupported Segwit (Bech32) or Base58 encoding."},
		{aiBech32(t, "bc", true, 1, x, nil), "Invalid or unsupported Segwit (Bech32) or Base58 encoding."},
		{" " + v0, "Invalid or unsupported Segwit (Bech32) or Base58 encoding."},
		{aiBech32(t, hrp, false, 0, nil, []byte{}), "Empty Bech32 data section"},
		{aiBech32(t, hrp+"x", false, 0, h, nil), "Invalid or unsupported prefix for Segwit (Bech32) address (expected bcrt, got bcrtx)."},
		{aiBech32(t, hrp, true, 0, h, nil), "Version 0 witness address must use Bech32 checksum"},
		{aiBech32(t, hrp, false, 1, x, nil), "Version 1+ witness address must use Bech32m checksum"},
		{aiBech32(t, hrp, false, 0, nil, badPad), "Invalid padding in Bech32 data section"},
		{aiBech32(t, hrp, false, 0, append(h, 0), nil), "Invalid Bech32 v0 address program size (21 bytes), per BIP141"},
		{aiBech32(t, hrp, false, 0, h[:1], nil), "Invalid Bech32 v0 address program size (1 byte), per BIP141"},
		{aiBech32(t, hrp, true, 17, h, nil), "Invalid Bech32 address witness version"},
		{aiBech32(t, hrp, true, 1, h[:1], nil), "Invalid Bech32 address program size (1 byte)"},
		{aiBech32(t, hrp, true, 2, append(append(h, h...), 1), nil), "Invalid Bech32 address program size (41 bytes)"},
		{"bcrt1" + strings.Repeat("q", 86), "Bech32 string too long"},
		{v0[:10] + strings.ToUpper(v0[10:11]) + v0[11:], "Invalid character or mixed case"},
		{"bcrtqqqqqqqqqq", "Missing separator"},
		{"bcrt1", "Invalid separator position"},
		{"bcrt1qqqqq", "Invalid separator position"},
		{"bcrt1qqqqqqqbqqq", "Invalid Base 32 character"},
		{"bcrt1qqqqqq!qqq", "Invalid Base 32 character"},
		{aiFlip(v0, 12), "Invalid Bech32 checksum"},
		{aiFlip(v1, 12), "Invalid Bech32m checksum"},
	}

	for _, priv := range []bool{false, true} {
		path := aiCreate(t, n, fmt.Sprintf("w%v", priv), priv)
		// Something in the wallet, so that it is not empty.
		aiImportOne(t, n, path, aiImport{desc: "wpkh(" + map[bool]string{false: keys.WIF["k02"].PubKey, true: keys.WIF["k02"].WIF}[priv] + ")"})
		for _, o := range foreign {
			aiCompare(t, o.addr, aiInfo(t, n, path, o.addr), aiForeign(o).obj())
		}
		// Upper case is accepted and echoed in lower case.
		up := strings.ToUpper(v1)
		aiCompare(t, up, aiInfo(t, n, path, up), aiForeign(aiP2TR(x)).obj())
		for _, c := range invalid {
			pr, _ := json.Marshal([]string{c.addr})
			r := n.call(t, path, "getaddressinfo", pr)
			if r.Error == nil {
				t.Errorf("%q: got result %s, want error %q", c.addr, r.Result, c.msg)
				continue
			}
			if r.Error.Code != -5 || r.Error.Message != c.msg {
				t.Errorf("%q: got %d %q, want -5 %q", c.addr, r.Error.Code, r.Error.Message, c.msg)
			}
		}
	}
}

// aiCall makes a call that must succeed and decodes its result into v
// (nil: ignored).
func aiCall(t *testing.T, n *walletNode, path, method string, v any, params ...any) {
	t.Helper()
	p, _ := json.Marshal(params)
	r := n.call(t, path, method, p)
	if r.Error != nil {
		t.Fatalf("%s %s: %d %s", method, p, r.Error.Code, r.Error.Message)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result, v); err != nil {
			t.Fatalf("%s: %s: %v", method, r.Result, err)
		}
	}
}

// TestAddressInfoChangeAndLabels follows ischange and labels (c.6, c.8)
// through handing out, labelling and re-importing, and the split answer
// for a script that two descriptors produce (c.3 row 6).
func TestAddressInfoChangeAndLabels(t *testing.T) {
	keys := loadAIKeys(t)
	n := aiSetup(t)
	path := aiCreate(t, n, "watch", false)

	master := aiParseX(keys.BIP32["t06"].TPrv)
	mfp := aiFP(master.pub())
	acct := master.derive(86+aiH, 1+aiH, 0+aiH)
	tr := func(branch, i uint32, change bool, labels ...string) aiWant {
		x := acct.derive(branch, i).pub()[1:]
		return aiWant{out: aiP2TR(aiTapOutput(x, nil)), mine: true, desc: fmt.Sprintf("tr([%s/86h/1h/0h/%d/%d]%x)", mfp, branch, i, x),
			parent: fmt.Sprintf("tr([%s/86h/1h/0h]%s/%d/*)", mfp, acct.tpub(), branch), change: change,
			meta: &aiMeta{fmt.Sprintf("m/86h/1h/0h/%d/%d", branch, i), mfp}, labels: labels}
	}
	check := func(w aiWant) {
		t.Helper()
		aiCompare(t, w.out.addr, aiInfo(t, n, path, w.out.addr), w.obj())
	}

	aiImportOne(t, n, path, aiImport{desc: fmt.Sprintf("tr([%s/86h/1h/0h]%s/0/*)", mfp, acct.tpub()), active: true, rng: &[2]int{0, 4}})
	aiImportOne(t, n, path, aiImport{desc: fmt.Sprintf("tr([%s/86h/1h/0h]%s/1/*)", mfp, acct.tpub()), active: true, internal: true, rng: &[2]int{0, 4}})
	for i := uint32(0); i < 4; i++ {
		check(tr(0, i, true))
	}
	var a string
	aiCall(t, n, path, "getnewaddress", &a, "", "bech32m")
	if w := tr(0, 0, false, ""); a != w.out.addr {
		t.Fatalf("getnewaddress: got %s, want %s", a, w.out.addr)
	}
	check(tr(0, 0, false, ""))
	check(tr(0, 1, true))
	aiCall(t, n, path, "getnewaddress", &a, "lbl", "bech32m")
	check(tr(0, 1, false, "lbl"))
	aiCall(t, n, path, "setlabel", nil, tr(0, 3, true).out.addr, "x")
	check(tr(0, 3, false, "x"))
	check(tr(0, 2, true))
	aiCall(t, n, path, "getrawchangeaddress", &a, "bech32m")
	if w := tr(1, 0, true); a != w.out.addr {
		t.Fatalf("getrawchangeaddress: got %s, want %s", a, w.out.addr)
	}
	check(tr(1, 0, true))
	aiCall(t, n, path, "setlabel", nil, a, "")
	check(tr(1, 0, false, ""))

	// A non-ranged internal descriptor is change until re-imported as
	// external; the re-import's label replaces the old one.
	p := aiHex(keys.WIF["k03"].PubKey)
	hx := keys.WIF["k03"].PubKey
	pkh := func(change bool, labels ...string) aiWant {
		return aiWant{out: aiP2PKH(p), mine: true, desc: "pkh([" + aiFP(p) + "]" + hx + ")", parent: "pkh(" + hx + ")",
			details: aiPKHDetails(p), change: change, meta: &aiMeta{"m", aiFP(p)}, labels: labels}
	}
	aiImportOne(t, n, path, aiImport{desc: "pkh(" + hx + ")", internal: true})
	check(pkh(true))
	aiImportOne(t, n, path, aiImport{desc: "pkh(" + hx + ")"})
	check(pkh(false, ""))
	aiImportOne(t, n, path, aiImport{desc: "pkh(" + hx + ")", label: aiStr("z")})
	check(pkh(false, "z"))
	aiImportOne(t, n, path, aiImport{desc: "pkh(" + hx + ")"})
	check(pkh(false, ""))

	// addr() with internal:true is change.
	o := aiP2WSH(aiPK(p))
	aiImportOne(t, n, path, aiImport{desc: "addr(" + o.addr + ")", internal: true})
	check(aiWant{out: o, mine: true, parent: "addr(" + o.addr + ")", change: true})

	// A foreign address given a label.
	f := aiP2WPKH(aiHex(keys.WIF["k04"].PubKey))
	aiCall(t, n, path, "setlabel", nil, f.addr, "f")
	check(aiWant{out: f, labels: []string{"f"}})

	// addr(A) then wpkh(K) with the same script: the solving data is the
	// addr() descriptor's (not solvable, no desc, no pubkey), parent_desc
	// and the metadata are wpkh()'s.
	q := aiHex(keys.WIF["k05"].PubKey)
	w := aiP2WPKH(q)
	aiImportOne(t, n, path, aiImport{desc: "addr(" + w.addr + ")"})
	check(aiWant{out: w, mine: true, parent: "addr(" + w.addr + ")", labels: []string{""}})
	aiImportOne(t, n, path, aiImport{desc: "wpkh(" + keys.WIF["k05"].PubKey + ")"})
	check(aiWant{out: w, mine: true, parent: "wpkh(" + keys.WIF["k05"].PubKey + ")", meta: &aiMeta{"m", aiFP(q)}, labels: []string{""}})
}

// TestAddressInfoArguments checks getaddressinfo's argument checks and
// wallet routing (a.7-a.9) in Core's order.
func TestAddressInfoArguments(t *testing.T) {
	keys := loadAIKeys(t)
	n := aiSetup(t)
	valid := aiP2WPKH(aiHex(keys.WIF["k01"].PubKey)).addr
	typeErr := func(got string) string {
		return "Wrong type passed:\n{\n    \"Position 1 (address)\": \"JSON value of type " + got + " is not of expected type string\"\n}"
	}
	noWallet := "No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created)"
	type call struct {
		path, params string
		code         int
		msg          string // "" for -1: only the code is Core's
	}
	run := func(cs []call) {
		t.Helper()
		for _, c := range cs {
			r := n.call(t, c.path, "getaddressinfo", json.RawMessage(c.params))
			switch {
			case c.code == 0:
				if r.Error != nil {
					t.Errorf("%s %s: got error %d %q", c.path, c.params, r.Error.Code, r.Error.Message)
				}
			case r.Error == nil:
				t.Errorf("%s %s: got %s, want error %d", c.path, c.params, r.Result, c.code)
			case r.Error.Code != c.code || c.msg != "" && r.Error.Message != c.msg:
				t.Errorf("%s %s: got %d %q, want %d %q", c.path, c.params, r.Error.Code, r.Error.Message, c.code, c.msg)
			case c.code == -1 && !strings.HasPrefix(r.Error.Message, "getaddressinfo \"address\"\n"):
				t.Errorf("%s %s: help text %q", c.path, c.params, r.Error.Message)
			}
		}
	}
	run([]call{
		{"/", `["notanaddress"]`, -18, noWallet},
		{"/", `[]`, -1, ""},
		{"/", `[1]`, -3, typeErr("number")},
		{"/wallet/nosuch", `[1]`, -3, typeErr("number")},
		{"/wallet/nosuch", `[null]`, -3, typeErr("null")},
		{"/wallet/nosuch", `[true]`, -3, typeErr("bool")},
		{"/wallet/nosuch", `[[]]`, -3, typeErr("array")},
		{"/wallet/nosuch", `[{}]`, -3, typeErr("object")},
		{"/wallet/nosuch", `["notanaddress"]`, -18, "Requested wallet does not exist or is not loaded"},
		{"/wallet/nosuch", `["a","b"]`, -1, ""},
		{"/wallet/nosuch", `{}`, -1, ""},
		{"/wallet/nosuch", `{"args":[]}`, -1, ""},
		{"/wallet/nosuch", `{"addr":"x"}`, -8, "Unknown named parameter addr"},
	})
	aiCreate(t, n, "one", false)
	run([]call{
		{"/", `["` + valid + `"]`, 0, ""},
		{"/", `{"address":"` + valid + `"}`, 0, ""},
		{"/", `{"args":["` + valid + `"]}`, 0, ""},
		{"/", `["notanaddress"]`, -5, "Invalid checksum or length of Base58 address (P2PKH or P2SH)"},
		{"/", `["not an address"]`, -5, "Invalid or unsupported Segwit (Bech32) or Base58 encoding."},
	})
	aiCreate(t, n, "two", true)
	run([]call{
		{"/", `["` + valid + `"]`, -19, "Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path."},
		{"/wallet/two", `["` + valid + `"]`, 0, ""},
	})
}
