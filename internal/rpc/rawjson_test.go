package rpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// slowMembers is an object's members read with encoding/json's tokenizer,
// the first occurrence of a key winning.
func slowMembers(raw []byte) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	out := make(map[string]json.RawMessage)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if _, dup := out[key]; !dup {
			out[key] = v
		}
	}
	return out, true
}

// checkRawJSON compares Elements and Members with encoding/json on one
// input: whatever they accept, encoding/json accepts too and reads the
// same way.
func checkRawJSON(t *testing.T, in []byte) {
	if els, ok := Elements(in); ok {
		var want []json.RawMessage
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatalf("Elements accepts %q, encoding/json: %v", in, err)
		}
		if len(els) != len(want) {
			t.Fatalf("%q: %d elements, encoding/json %d", in, len(els), len(want))
		}
		for i := range els {
			if !bytes.Equal(els[i], want[i]) {
				t.Fatalf("%q element %d: %q, encoding/json %q", in, i, els[i], want[i])
			}
		}
	}
	if m, ok := Members(in); ok {
		want, wok := slowMembers(in)
		var probe any
		if !wok || json.Unmarshal(in, &probe) != nil {
			t.Fatalf("Members accepts %q, encoding/json does not", in)
		}
		if len(m) != len(want) {
			t.Fatalf("%q: %d members, encoding/json %d", in, len(m), len(want))
		}
		for k, v := range m {
			if !bytes.Equal(v, want[k]) {
				t.Fatalf("%q member %q: %q, encoding/json %q", in, k, v, want[k])
			}
		}
	}
}

// TestRawJSON reads arrays and objects (nested values, spaces, escaped
// keys, duplicate keys, empty ones) the way encoding/json does, and
// refuses what is not one well-formed array or object.
func TestRawJSON(t *testing.T) {
	for _, in := range rawJSONSeeds {
		checkRawJSON(t, []byte(in))
	}
	els, ok := Elements([]byte(` [ {"a": [1, 2]} , "x" ,null,-1.5e3] `))
	if !ok || len(els) != 4 || string(els[0]) != `{"a": [1, 2]}` || string(els[3]) != `-1.5e3` {
		t.Fatalf("elements %q %v", els, ok)
	}
	m, ok := Members([]byte(`{"txid": "ab", "vout" : 0, "t\u0078id": "cd", "amount":1e-3 }`))
	if !ok || len(m) != 3 || string(m["txid"]) != `"ab"` || string(m["vout"]) != `0` || string(m["amount"]) != `1e-3` {
		t.Fatalf("members %q %v", m, ok)
	}
	for _, bad := range []string{``, `[`, `[1,]`, `[1] [2]`, `{"a":1,}`, `{"a"}`, `"s"`, `1`, `{} x`,
		"[\"\xff\"]", `{"a":1`, `[01]`} {
		if _, ok := Elements([]byte(bad)); ok {
			t.Fatalf("Elements accepts %q", bad)
		}
		if _, ok := Members([]byte(bad)); ok {
			t.Fatalf("Members accepts %q", bad)
		}
	}
}

var rawJSONSeeds = []string{
	`[]`, `{}`, ` [ ] `, `[1,"a",{"b":[true,false,null]},[[]]]`,
	`{"a":1,"a":2,"b":{"c":[1,2,{"d":"e"}]},"":0}`,
	`{"\u00e9":"x","\ud83d\ude00":[1]}`, `[" \" \\ \/ \b \f \n \r \t "]`,
	`{"txid":"0000000000000000000000000000000000000000000000000000000000000001","vout":0,"scriptPubKey":"0014","amount":0.001}`,
}

// FuzzRawJSON compares Elements and Members with encoding/json.
func FuzzRawJSON(f *testing.F) {
	for _, s := range rawJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 4096 {
			return
		}
		checkRawJSON(t, in)
	})
}
