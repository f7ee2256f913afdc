package methods

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/descriptor"
)

// Audit of getdescriptorinfo and deriveaddresses against Core's
// src/rpc/output_script.cpp and ParseDescriptorRange (src/rpc/util.cpp), on
// regtest. The key pair and addresses are those of Core's
// rpc_deriveaddresses.py.

const (
	auTprv = "tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK"
	auTpub = "tpubD6NzVbkrYhZ4WaWSyoBvQwbpLkojyoTZPRsgXELWz3Popb3qkjcJyJUGLnL4qHHoQvao8ESaAstxYSnhyswJ76uZPStJRJCTKvosUCJZL5B"
	auK    = "02cfc119494e46afbc4ee87894fe68c94640a149c040e193b7e37d4d8237dadfc0"
	auXpub = "xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL"
	auWIF  = "L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY1"
	// wpkh(tprv/1/1/0) and combo(tprv/1/1/0).
	auWpkh0 = "bcrt1qjqmxmkpmxt80xz4y3746zgt0q3u3ferr34acd5"
	auPkh0  = "mtfUoUax9L4tzXARpw1oTGxWyoogp52KhJ"
	auShW0  = "2NDvEwGfpEqJWfybzpKPHF2XH3jwoQV3D7x"
	// wpkh(tprv/1/1/*) at 2147483647.
	auWpkhMax = "bcrt1qtzs23vgzpreks5gtygwxf8tv5rldxvvsyfpdkg"
)

func sum(t *testing.T, s string) string {
	t.Helper()
	c, err := descriptor.Checksum(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func withSum(t *testing.T, s string) string { return s + "#" + sum(t, s) }

func params(args ...any) json.RawMessage {
	b, _ := json.Marshal(args)
	return b
}

func TestAuditDeriveAddresses(t *testing.T) {
	s := descriptorServer(t)
	ranged := withSum(t, "wpkh("+auTprv+"/1/1/*)")
	single := withSum(t, "wpkh("+auTprv+"/1/1/0)")
	ok := []struct {
		name   string
		params json.RawMessage
		want   any
	}{
		{"single", params(single), []string{auWpkh0}},
		{"combo skips P2PK", params(withSum(t, "combo("+auTprv+"/1/1/0)")), []string{auPkh0, auWpkh0, auShW0}},
		{"public key", params(withSum(t, "wpkh("+auTpub+"/1/1/0)")), []string{auWpkh0}},
		{"null range on a ranged descriptor derives index 0", json.RawMessage(`["` + ranged + `",null]`), []string{auWpkh0}},
		{"named null range on a ranged descriptor", json.RawMessage(`{"descriptor":"` + ranged + `","range":null}`), []string{auWpkh0}},
		{"named range", json.RawMessage(`{"range":[0,0],"descriptor":"` + ranged + `"}`), []string{auWpkh0}},
		{"end only", params(ranged, 0), []string{auWpkh0}},
		{"pair", params(ranged, []int{0, 0}), []string{auWpkh0}},
		{"highest index", params(ranged, []int{2147483647, 2147483647}), []string{auWpkhMax}},
		{"raw script with an address", params(withSum(t, "raw(00146f58bac9506f9bfb821d62e69330410bb56f0085)")), []string{"bcrt1qdavt4j2sd7dlhqsavtnfxvzppw6k7qy97tmnu9"}},
		{"raw witness v16 script", params(withSum(t, "raw(6028368279cbe6f5cbbc2ba8154883a9a29e5517d1f3c03cac4f39ce3225060b3efb799cd9c412746ae2)")), []string{"bcrt1sx6p8njlx7h9mc2agz4yg82dzne23050ncq72cneeecez2pst8mahn8xecsf8g6hzx94420"}},
		{"address", params(withSum(t, "addr("+auPkh0+")")), []string{auPkh0}},
		{"anchor", params(withSum(t, "addr(bcrt1pfeesnyr2tx)")), []string{"bcrt1pfeesnyr2tx"}},
	}
	for _, c := range ok {
		got := descCall(t, s, "deriveaddresses", c.params)
		if got.Error != nil {
			t.Errorf("%s: error %+v", c.name, *got.Error)
			continue
		}
		want, _ := json.Marshal(c.want)
		if !sameJSON(got.Result, want) {
			t.Errorf("%s: %s, want %s", c.name, got.Result, want)
		}
	}

	// Multipath: a list of lists, each equal to its branch derived alone.
	mp := withSum(t, "wpkh("+auTpub+"/1/<1;2>/*)")
	got := descCall(t, s, "deriveaddresses", params(mp, []int{0, 2}))
	var lists [][]string
	if got.Error != nil || json.Unmarshal(got.Result, &lists) != nil || len(lists) != 2 {
		t.Fatalf("multipath: %+v %s", got.Error, got.Result)
	}
	for i, p := range []string{"1", "2"} {
		one := descCall(t, s, "deriveaddresses", params(withSum(t, "wpkh("+auTpub+"/1/"+p+"/*)"), []int{0, 2}))
		b, _ := json.Marshal(lists[i])
		if one.Error != nil || !sameJSON(one.Result, b) || len(lists[i]) != 3 {
			t.Errorf("multipath branch %d: %s, alone %s", i, b, one.Result)
		}
	}
	if lists[0][0] != auWpkh0 {
		t.Errorf("multipath branch 0 index 0: %s", lists[0][0])
	}

	bad := []struct {
		name   string
		params json.RawMessage
		code   int
		msg    string
	}{
		{"missing checksum", params("wpkh(" + auTprv + "/1/1/0)"), -5, "Missing checksum"},
		{"bad checksum", params("wpkh(" + auTprv + "/1/1/0)#qqqqqqqq"), -5, "Provided checksum 'qqqqqqqq' does not match computed checksum '" + sum(t, "wpkh("+auTprv+"/1/1/0)") + "'"},
		{"range on unranged", params(single, []int{0, 2}), -8, "Range should not be specified for an un-ranged descriptor"},
		{"null range on unranged", json.RawMessage(`["` + single + `",null]`), -8, "Range should not be specified for an un-ranged descriptor"},
		{"no range on ranged", params(ranged), -8, "Range must be specified for a ranged descriptor"},
		{"negative end", params(ranged, -1), -8, "End of range is too high"},
		{"end 2^31", params(ranged, []int64{0, 2147483648}), -8, "End of range is too high"},
		{"negative begin", params(ranged, []int{-1, 0}), -8, "Range should be greater or equal than 0"},
		{"begin after end", params(ranged, []int{2, 1}), -8, "Range specified as [begin,end] must not have begin after end"},
		{"too large", params(ranged, []int{0, 1000000}), -8, "Range is too large"},
		{"too large from begin", params(ranged, []int{5, 1000005}), -8, "Range is too large"},
		{"string range", params(ranged, "1"), -8, "Range must be specified as end or as [begin,end]"},
		{"one element", params(ranged, []int{1}), -8, "Range must be specified as end or as [begin,end]"},
		{"three elements", params(ranged, []int{0, 1, 2}), -8, "Range must be specified as end or as [begin,end]"},
		{"pair with a string", params(ranged, []any{0, "1"}), -8, "Range must be specified as end or as [begin,end]"},
		{"object", params(ranged, map[string]int{}), -8, "Range must be specified as end or as [begin,end]"},
		{"bool", params(ranged, true), -8, "Range must be specified as end or as [begin,end]"},
		{"fraction", json.RawMessage(`["` + ranged + `",1.5]`), -1, "JSON integer out of range"},
		{"fraction in pair", json.RawMessage(`["` + ranged + `",[0,1.5]]`), -1, "JSON integer out of range"},
		// The range is read before the descriptor.
		{"range error before missing checksum", params("pk("+auK+")", []int{2, 1}), -8, "Range specified as [begin,end] must not have begin after end"},
		{"range shape before unranged", params(single, "x"), -8, "Range must be specified as end or as [begin,end]"},
		{"named null range on unranged", json.RawMessage(`{"descriptor":"` + single + `","range":null}`), -8, "Range should not be specified for an un-ranged descriptor"},
		{"named, no range on ranged", json.RawMessage(`{"descriptor":"` + ranged + `"}`), -8, "Range must be specified for a ranged descriptor"},
		{"P2PK", params(withSum(t, "pk("+auK+")")), -5, "Descriptor does not have a corresponding address"},
		{"ranged P2PK", params(withSum(t, "pk("+auTpub+"/*)"), 0), -5, "Descriptor does not have a corresponding address"},
		{"bare multisig", params(withSum(t, "multi(1,"+auK+")")), -5, "Descriptor does not have a corresponding address"},
		{"OP_RETURN", params(withSum(t, "raw(6a)")), -5, "Descriptor does not have a corresponding address"},
		{"OP_TRUE", params(withSum(t, "raw(51)")), -5, "Descriptor does not have a corresponding address"},
		{"hardened from xpub", params(withSum(t, "wpkh("+auTpub+"/1'/1/0)")), -5, "Cannot derive script without private keys"},
		{"hardened wildcard from xpub", params(withSum(t, "wpkh("+auTpub+"/1/*h)"), 0), -5, "Cannot derive script without private keys"},
		{"hardened multipath step from xpub", params(withSum(t, "wpkh("+auTpub+"/<0h;1>/*)"), 0), -5, "Cannot derive script without private keys"},
		{"main-net xpub", params(withSum(t, "pkh("+auXpub+")")), -5, "pkh(): key '" + auXpub + "' is not valid"},
		{"main-net WIF", params(withSum(t, "pkh("+auWIF+")")), -5, "pkh(): key '" + auWIF + "' is not valid"},
		{"main-net address", params(withSum(t, "addr(bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4)")), -5, "Address is not valid"},
		{"test-net bech32 address", params(withSum(t, "addr(tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx)")), -5, "Address is not valid"},
		{"parse error", params(withSum(t, "wsh(wpkh("+auK+"))")), -5, "Can only have wpkh() at top level or inside sh()"},
		{"trailing parenthesis", params(withSum(t, "pk("+auK+"))")), -5, ""},
	}
	for _, c := range bad {
		got := descCall(t, s, "deriveaddresses", c.params)
		if got.Error == nil || got.Error.Code != c.code || got.Error.Message != c.msg {
			t.Errorf("%s: got %+v %s, want %d %q", c.name, got.Error, got.Result, c.code, c.msg)
		}
	}
}

func TestAuditGetDescriptorInfo(t *testing.T) {
	s := descriptorServer(t)
	type info struct {
		desc      string
		multipath []string
		isrange   bool
		solvable  bool
		priv      bool
	}
	// expected builds Core's reply in its field order.
	expected := func(in string, i info) []byte {
		var b bytes.Buffer
		b.WriteString(`{"descriptor":`)
		d, _ := json.Marshal(descriptorAddSum(i.desc))
		b.Write(d)
		if i.multipath != nil {
			var m []string
			for _, x := range i.multipath {
				m = append(m, descriptorAddSum(x))
			}
			mb, _ := json.Marshal(m)
			b.WriteString(`,"multipath_expansion":`)
			b.Write(mb)
		}
		body, _, _ := strings.Cut(in, "#")
		cs, _ := json.Marshal(sum(t, body))
		b.WriteString(`,"checksum":`)
		b.Write(cs)
		for _, kv := range []struct {
			k string
			v bool
		}{{"isrange", i.isrange}, {"issolvable", i.solvable}, {"hasprivatekeys", i.priv}} {
			v, _ := json.Marshal(kv.v)
			b.WriteString(`,"` + kv.k + `":`)
			b.Write(v)
		}
		b.WriteString("}")
		return b.Bytes()
	}
	cases := []struct {
		in   string
		want info
	}{
		{"pk(" + auK + ")", info{desc: "pk(" + auK + ")", solvable: true}},
		{withSum(t, "pk("+auK+")"), info{desc: "pk(" + auK + ")", solvable: true}},
		{"pk(" + strings.ToUpper(auK) + ")", info{desc: "pk(" + auK + ")", solvable: true}},
		{"wpkh(" + auTprv + "/1/1/0)", info{desc: "wpkh(" + auTpub + "/1/1/0)", solvable: true, priv: true}},
		{"pkh(" + auTprv + "/44'/1h/0'/0/5)", info{desc: "pkh(" + auTpub + "/44'/1'/0'/0/5)", solvable: true, priv: true}},
		{"pkh(" + auTprv + "/44h/1'/0h/0/*)", info{desc: "pkh(" + auTpub + "/44h/1h/0h/0/*)", isrange: true, solvable: true, priv: true}},
		{"pkh([D34DB33F/44'/1h]" + auTpub + "/0/*)", info{desc: "pkh([d34db33f/44h/1h]" + auTpub + "/0/*)", isrange: true, solvable: true}},
		{"raw(DEADBEEF)", info{desc: "raw(deadbeef)"}},
		{"addr(" + strings.ToUpper(auWpkh0) + ")", info{desc: "addr(" + auWpkh0 + ")"}},
		{"wpkh(" + auTpub + "/<0;1>/*)", info{desc: "wpkh(" + auTpub + "/0/*)",
			multipath: []string{"wpkh(" + auTpub + "/0/*)", "wpkh(" + auTpub + "/1/*)"}, isrange: true, solvable: true}},
		{"wpkh(" + auTprv + "/<0;1;2>)", info{desc: "wpkh(" + auTpub + "/0)",
			multipath: []string{"wpkh(" + auTpub + "/0)", "wpkh(" + auTpub + "/1)", "wpkh(" + auTpub + "/2)"}, solvable: true, priv: true}},
		{"tr(" + auK + ",pk(" + auTprv + "/0/*))", info{desc: "tr(" + auK + ",pk(" + auTpub + "/0/*))", isrange: true, solvable: true, priv: true}},
		{"wsh(c:pk_k(" + auK + "))", info{desc: "wsh(pk(" + auK + "))", solvable: true}},
		{"tr(musig(" + auTprv + "," + auK + "))", info{desc: "tr(musig(" + auTpub + "," + auK + "))", solvable: true, priv: true}},
		{"tr(" + auK + ",pk(musig(" + auK + "," + auTprv + "/0)))", info{desc: "tr(" + auK + ",pk(musig(" + auK + "," + auTpub + "/0)))", solvable: true, priv: true}},
	}
	for _, c := range cases {
		got := descCall(t, s, "getdescriptorinfo", params(c.in))
		if got.Error != nil {
			t.Errorf("%s: error %+v", c.in, *got.Error)
			continue
		}
		var compact bytes.Buffer
		json.Compact(&compact, got.Result)
		if want := expected(c.in, c.want); !bytes.Equal(compact.Bytes(), want) {
			t.Errorf("%s:\n got %s\nwant %s", c.in, compact.Bytes(), want)
		}
	}
	bad := []struct{ in, msg string }{
		{"", "'' is not a valid descriptor function"},
		{"pk(" + auK + ") ", "'pk(" + auK + ") ' is not a valid descriptor function"},
		{"pk(" + auK + "))", ""},
		{"pk(" + auK + ")#" + strings.ToUpper(sum(t, "pk("+auK+")")), "Provided checksum '" + strings.ToUpper(sum(t, "pk("+auK+")")) + "' does not match computed checksum '" + sum(t, "pk("+auK+")") + "'"},
		{"pk(" + auK + ")#", "Expected 8 character checksum, not 0 characters"},
		{"pk(" + auK + ")##", "Multiple '#' symbols"},
		{"raw(é)", "Invalid characters in payload"},
		{"pkh(" + auXpub + ")", "pkh(): key '" + auXpub + "' is not valid"},
		{"pkh(" + auWIF + ")", "pkh(): key '" + auWIF + "' is not valid"},
		{"addr(bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4)", "Address is not valid"},
		{"addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j)", "Address is not valid"},
		{"pkh(" + auTpub + "/2147483648)", "pkh(): Key path value 2147483648 is out of range"},
		{"pkh(" + auTpub + "/44H)", "pkh(): Key path value '44H' is not a valid uint32"},
		{"tr(musig(" + auK + "))x", "'tr(musig(" + auK + "))x' is not a valid descriptor function"},
		{"wsh(pk_k(musig(" + auK + ")))", "musig() is only allowed in tr() and rawtr()"},
	}
	for _, c := range bad {
		got := descCall(t, s, "getdescriptorinfo", params(c.in))
		if got.Error == nil || got.Error.Code != -5 || got.Error.Message != c.msg {
			t.Errorf("%s: got %+v %s, want -5 %q", c.in, got.Error, got.Result, c.msg)
		}
	}
}

func descriptorAddSum(s string) string { return descriptor.AddChecksum(s) }
