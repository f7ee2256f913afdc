package miniscript

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/internal/script"
)

// testKeys parses any key expression without separators, and gives each
// distinct string a deterministic key.
type testKeys struct {
	ctx   Context
	names []string
}

func (k *testKeys) ParseKey(s string) (int, error) {
	if strings.ContainsAny(s, ",()") || s == "" {
		return 0, errTestKey
	}
	k.names = append(k.names, s)
	return len(k.names) - 1, nil
}

var errTestKey = makeError(ErrKey, "bad test key")

func (k *testKeys) KeyID(i int) string { return k.names[i] }

func (k *testKeys) name(i int) string { return k.names[i] }

func (k *testKeys) bytes() [][]byte {
	var out [][]byte
	for _, n := range k.names {
		h := sha256.Sum256([]byte(n))
		if k.ctx == Tapscript {
			out = append(out, h[:])
		} else {
			out = append(out, append([]byte{2}, h[:]...))
		}
	}
	return out
}

// scriptKeys resolves keys of a script back to the names that made them.
type scriptKeys struct {
	ctx   Context
	known [][]byte
	keys  [][]byte
}

func (r *scriptKeys) FromPKBytes(b []byte) (int, bool) {
	if (r.ctx == Tapscript) != (len(b) == 32) {
		return 0, false
	}
	r.keys = append(r.keys, b)
	return len(r.keys) - 1, true
}

func (r *scriptKeys) FromPKHBytes(h []byte) (int, bool) {
	for _, k := range r.known {
		if h160 := script.Hash160(k); bytes.Equal(h160[:], h) {
			r.keys = append(r.keys, k)
			return len(r.keys) - 1, true
		}
	}
	return 0, false
}

func (r *scriptKeys) KeyID(i int) string { return string(r.keys[i]) }

const (
	kA = "A"
	kB = "B"
	kC = "C"
)

var h32 = strings.Repeat("ab", 32)
var h20 = strings.Repeat("cd", 20)

func TestParseCases(t *testing.T) {
	cases := []struct {
		ms       string
		ctx      Context
		ok       bool   // parses as miniscript
		typ      string // basic type and some properties it must have
		sane     bool
		saneMsg  string // suffix of SaneError
		printsAs string // "" when String gives ms back
	}{
		{ms: "pk(A)", ok: true, typ: "Bondus", sane: true},
		{ms: "c:pk_k(A)", ok: true, typ: "B", sane: true, printsAs: "pk(A)"},
		{ms: "c:pk_h(A)", ok: true, typ: "Bndu", sane: true, printsAs: "pkh(A)"},
		{ms: "and_v(v:pk(A),older(144))", ok: true, typ: "Bn", sane: true},
		{ms: "or_d(pk(A),and_v(v:pk(B),older(1000)))", ok: true, typ: "Bfs", sane: true},
		{ms: "and_n(pk(A),sha256(" + h32 + "))", ok: true, typ: "B", sane: true},
		{ms: "andor(pk(A),pk(B),pk(C))", ok: true, typ: "Bdu", sane: true},
		{ms: "thresh(2,pk(A),s:pk(B),s:pk(C))", ok: true, typ: "Bdu", sane: true},
		{ms: "multi(2,A,B,C)", ok: true, typ: "Bndu", sane: true},
		{ms: "multi(2,A,B,C)", ctx: Tapscript, ok: false},
		{ms: "multi_a(2,A,B,C)", ctx: Tapscript, ok: true, typ: "Bdu", sane: true},
		{ms: "multi_a(2,A,B,C)", ok: false},
		{ms: "t:or_c(pk(A),v:pk(B))", ok: true, typ: "B", sane: true},
		{ms: "l:pk(A)", ok: true, typ: "Bdu", sane: true},
		{ms: "u:pk(A)", ok: true, typ: "Bdu", sane: true},
		{ms: "or_i(pk(A),pk(B))", ok: true, typ: "B", sane: true},
		{ms: "older(10)", ok: true, typ: "Bz", saneMsg: "older(10) is not sane: witnesses without signature exist"},
		{ms: "0", ok: true, typ: "Bz", saneMsg: "0 is not satisfiable"},
		{ms: "and_b(older(1),a:older(100000000))", ok: true, typ: "B",
			saneMsg: "and_b(older(1),a:older(100000000)) is not sane: witnesses without signature exist"},
		{ms: "and_b(and_b(older(1),a:older(100000000)),s:pk(A))", ok: true, typ: "B",
			saneMsg: "and_b(older(1),a:older(100000000)) is not sane: contains mixes of timelocks expressed in blocks and seconds"},
		{ms: "or_b(sha256(" + h32 + "),a:pk(A))", ok: true, typ: "B",
			saneMsg: "is not sane: malleable witnesses exist"},
		{ms: "and_v(v:pk(A),pk(A))", ok: true, typ: "B",
			saneMsg: "and_v(v:pk(A),pk(A)) is not sane: contains duplicate public keys"},
		{ms: "v:pk(A)", ok: true, typ: "V", saneMsg: "v:pk(A) is not sane"},
		{ms: "and_v(vc:andor(v:pk_k(A),pk_k(B),pk_k(C)),after(10))", ok: true, saneMsg: "v:pk_k(A) is invalid"},
		{ms: "vv:pk(A)", ok: false},
		{ms: "after(0)", ok: false},
		{ms: "after(2147483648)", ok: false},
		{ms: "thresh(3,pk(A),s:pk(B))", ok: false},
		{ms: "sha256(" + h20 + ")", ok: false},
		{ms: "hash160(" + h20 + ")", ok: true, typ: "Bonud"},
		{ms: "pk(A)x", ok: false},
		{ms: "and_v(v:pk(A))", ok: false},
	}
	for _, c := range cases {
		kp := &testKeys{ctx: c.ctx}
		n, err := Parse(c.ms, c.ctx, kp)
		if err != nil {
			t.Fatalf("%s: %v", c.ms, err)
		}
		if (n != nil) != c.ok {
			t.Errorf("%s: parsed %v, want %v", c.ms, n != nil, c.ok)
			continue
		}
		if n == nil {
			continue
		}
		if !n.Type().Has(mst(c.typ)) {
			t.Errorf("%s: type %s lacks %s", c.ms, n.Type(), c.typ)
		}
		want := c.printsAs
		if want == "" {
			want = c.ms
		}
		if got := n.String(kp.name); got != want {
			t.Errorf("%s: prints %s, want %s", c.ms, got, want)
		}
		msg := n.SaneError(kp.name)
		if c.sane != (msg == "") {
			t.Errorf("%s: sane %v (%q), want %v", c.ms, msg == "", msg, c.sane)
		}
		if c.saneMsg != "" && !strings.HasSuffix(msg, c.saneMsg) {
			t.Errorf("%s: message %q, want suffix %q", c.ms, msg, c.saneMsg)
		}
		checkRoundTrip(t, c.ms, n, kp)
	}
}

func TestKeyError(t *testing.T) {
	// A key is read up to the next ')', commas included, as Core does.
	if _, err := Parse("and_v(v:pk(A),pk(B,C))", P2WSH, &testKeys{}); err != errTestKey {
		t.Fatalf("error %v, want the key parser's", err)
	}
	n, err := Parse("pk(A", P2WSH, &testKeys{})
	if n != nil || err != nil {
		t.Fatalf("unclosed pk( gave %v, %v", n, err)
	}
}

func TestScripts(t *testing.T) {
	kp := &testKeys{}
	n, _ := Parse("and_v(v:pk(A),older(144))", P2WSH, kp)
	s, err := n.Script(kp.bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := "21" + hex.EncodeToString(kp.bytes()[0]) + "ad029000b2"
	if hex.EncodeToString(s) != want {
		t.Errorf("script %x, want %s", s, want)
	}
	if len(s) != n.ScriptSize() {
		t.Errorf("size %d, want %d", n.ScriptSize(), len(s))
	}
	if _, err := n.Script(nil); err == nil {
		t.Error("missing key accepted")
	}
}

// checkRoundTrip checks that n prints to a string that parses to an equal
// miniscript, and that a valid top-level miniscript decodes from its
// script to one with the same script and type.
func checkRoundTrip(t *testing.T, in string, n *Node, kp *testKeys) {
	t.Helper()
	s := n.String(kp.name)
	kp2 := &testKeys{ctx: kp.ctx}
	n2, err := Parse(s, n.Context(), kp2)
	if err != nil || n2 == nil {
		t.Fatalf("%q: printed form %q does not parse: %v", in, s, err)
	}
	if !n.Equal(n2) || n2.String(kp2.name) != s {
		t.Fatalf("%q: printed form %q parses differently", in, s)
	}
	if !n.IsValidTopLevel() {
		return
	}
	keys := kp.bytes()
	script, err := n.Script(keys)
	if err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	if len(script) != n.ScriptSize() {
		t.Fatalf("%q: script size %d, computed %d", in, len(script), n.ScriptSize())
	}
	r := &scriptKeys{ctx: n.Context(), known: keys}
	d := Decode(script, n.Context(), r)
	if d == nil {
		t.Fatalf("%q: script %x does not decode", in, script)
	}
	s2, _ := d.Script(r.keys)
	if !bytes.Equal(s2, script) || d.Type() != n.Type() {
		t.Fatalf("%q: decoded %x type %s, want %x type %s", in, s2, d.Type(), script, n.Type())
	}
}

// FuzzParse: parsing never panics, every parsed miniscript prints to a
// string that parses back to an equal one, and a valid top-level one
// decodes from its script.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"pk(A)", "and_v(v:pk(A),older(144))", "or_d(pk(A),and_v(v:pk(B),older(1000)))",
		"thresh(2,pk(A),s:pk(B),sln:after(100))", "multi(2,A,B,C)", "andor(pk(A),pk(B),pk(C))",
		"t:or_c(pk(A),v:pk(B))", "and_n(pk(A),sha256(" + h32 + "))", "j:hash160(" + h20 + ")",
		"or_i(and_v(v:pkh(A),hash160(" + h20 + ")),pk(B))", "dv:older(1)", "c:pk_h(A)"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, tap bool) {
		ctx := P2WSH
		if tap {
			ctx = Tapscript
		}
		kp := &testKeys{ctx: ctx}
		n, err := Parse(s, ctx, kp)
		if err != nil || n == nil {
			return
		}
		_ = n.SaneError(kp.name)
		checkRoundTrip(t, s, n, kp)
	})
}

// FuzzDecode: decoding never panics, and a decoded script re-encodes to
// itself.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{0x51}, false)
	f.Add(append(append([]byte{0x21, 2}, make([]byte, 32)...), 0xac), false)
	f.Fuzz(func(t *testing.T, b []byte, tap bool) {
		ctx := P2WSH
		if tap {
			ctx = Tapscript
		}
		r := &scriptKeys{ctx: ctx}
		n := Decode(b, ctx, r)
		if n == nil {
			return
		}
		s, err := n.Script(r.keys)
		if err != nil || !bytes.Equal(s, b) {
			t.Fatalf("decoded %x re-encodes to %x", b, s)
		}
	})
}
