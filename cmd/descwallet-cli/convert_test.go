package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/rpc/methods"
)

// convertCase is one conversion of a call's arguments: the JSON params
// expected, or the error.
type convertCase struct {
	name    string
	method  string
	args    []string
	want    string
	wantErr string
}

// runConvertCases runs each case through convert as a subtest.
func runConvertCases(t *testing.T, convert func(method string, args []string) (json.RawMessage, error), tests []convertCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := convert(tt.method, tt.args)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestConvertPositional checks which positional arguments become JSON and
// which stay strings.
func TestConvertPositional(t *testing.T) {
	t.Parallel()
	runConvertCases(t, convertPositional, []convertCase{
		{"no args", "uptime", nil, `[]`, ""},
		{"echo keeps strings", "echo", []string{"1", "true", `{"a":1}`, "x y"},
			`["1","true","{\"a\":1}","x y"]`, ""},
		{"echojson parses", "echojson", []string{"1", "true", `{"a": 1}`, `[1, "b"]`, "null", `"s"`},
			`[1,true,{"a":1},[1,"b"],null,"s"]`, ""},
		{"echojson keeps number text", "echojson", []string{"1.10", "1e300", "-0.0", "12345678901234567890"},
			`[1.10,1e300,-0.0,12345678901234567890]`, ""},
		{"echojson bad json", "echojson", []string{"notjson"}, "", "Error parsing JSON: notjson"},
		{"echojson two values", "echojson", []string{"1 2"}, "", "Error parsing JSON: 1 2"},
		{"echojson surrounding space", "echojson", []string{" 7 "}, `[7]`, ""},
		{"html not escaped", "echo", []string{"<&>"}, `["<&>"]`, ""},
		{"signrawtransactionwithkey", "signrawtransactionwithkey",
			[]string{"0200", `["cV..."]`, `[{"txid":"ab","vout":0}]`, "ALL"},
			`["0200",["cV..."],[{"txid":"ab","vout":0}],"ALL"]`, ""},
		{"importdescriptors", "importdescriptors", []string{`[{"desc":"x","timestamp":"now"}]`},
			`[[{"desc":"x","timestamp":"now"}]]`, ""},
		{"deriveaddresses range", "deriveaddresses", []string{"wpkh(x)", "[0,2]"}, `["wpkh(x)",[0,2]]`, ""},
		{"createwallet bools", "createwallet", []string{"w", "false", "true", "", "false", "true"},
			`["w",false,true,"",false,true]`, ""},
		{"getnewaddress strings", "getnewaddress", []string{"1", "bech32"}, `["1","bech32"]`, ""},
		{"listdescriptors private", "listdescriptors", []string{"true"}, `[true]`, ""},
		{"rescanblockchain heights", "rescanblockchain", []string{"0", "100"}, `[0,100]`, ""},
		{"keypoolrefill", "keypoolrefill", []string{"5"}, `[5]`, ""},
		{"walletpassphrase timeout", "walletpassphrase", []string{"a=b", "60"}, `["a=b",60]`, ""},
		{"setlabel", "setlabel", []string{"addr", "5"}, `["addr","5"]`, ""},
		{"stop wait", "stop", []string{"0"}, `[0]`, ""},
	})
}

// TestConvertNamed checks -named argument handling, including positional
// arguments mixed in and values holding '='.
func TestConvertNamed(t *testing.T) {
	t.Parallel()
	runConvertCases(t, convertNamed, []convertCase{
		{"none", "uptime", nil, `{}`, ""},
		{"strings", "echo", []string{"arg0=a", "arg2=c"}, `{"arg0":"a","arg2":"c"}`, ""},
		{"json by name", "echojson", []string{"arg1=[1,2]", "arg0=true"}, `{"arg1":[1,2],"arg0":true}`, ""},
		{"later value wins in place", "echo", []string{"arg0=a", "arg1=b", "arg0=z"},
			`{"arg0":"z","arg1":"b"}`, ""},
		{"positional go to args", "echo", []string{"a", "arg3=d", "b"}, `{"arg3":"d","args":["a","b"]}`, ""},
		{"empty value", "echo", []string{"arg0="}, `{"arg0":""}`, ""},
		{"bad json by name", "echojson", []string{"arg0=nope"}, "", "Error parsing JSON: nope"},
		{"json positional with '='", "echojson", []string{`["a","="]`}, `{"args":[["a","="]]}`, ""},
		{"string positional with '='", "createwallet", []string{"my=wallet", "blank=true"},
			`{"blank":true,"args":["my=wallet"]}`, ""},
		{"unknown name on string method", "echo", []string{"foo=bar"}, `{"foo":"bar"}`, ""},
		{"passphrase with '='", "walletpassphrase", []string{"p=w", "timeout=60"},
			`{"timeout":60,"args":["p=w"]}`, ""},
		{"named passphrase", "walletpassphrase", []string{"passphrase=a=b", "timeout=1"},
			`{"passphrase":"a=b","timeout":1}`, ""},
	})
}

// TestConvertTable checks the table itself: no duplicate position with
// different names and formats, and every index in range.
func TestConvertTable(t *testing.T) {
	t.Parallel()
	type key struct {
		method string
		index  int
	}
	formats := map[key]paramFormat{}
	for _, p := range convertParams {
		if p.index < 0 || p.index > 20 || p.method == "" || p.name == "" {
			t.Errorf("bad entry %+v", p)
		}
		k := key{p.method, p.index}
		// Two names at one position are an object parameter and one of
		// its options (for -named); the first listed, the object, gives
		// the positional format. One name twice must agree.
		if f, ok := formats[k]; ok && f != p.format && byPosition(p.method, p.index).name == p.name {
			t.Errorf("%s position %d listed with two formats", p.method, p.index)
		}
		if _, ok := formats[k]; !ok {
			formats[k] = p.format
		}
	}
}

// FuzzConvert checks that conversion never panics and always yields valid
// JSON.
func FuzzConvert(f *testing.F) {
	f.Add("echojson", "[1,2]", "arg0=x")
	f.Add("createwallet", "a=b", "blank=true")
	f.Add("echo", "", "=")
	f.Fuzz(func(t *testing.T, method, a, b string) {
		if p, err := convertPositional(method, []string{a, b}); err == nil && !validJSON(p) {
			t.Fatalf("positional: invalid JSON %s", p)
		}
		if p, err := convertNamed(method, []string{a, b}); err == nil && !validJSON(p) {
			t.Fatalf("named: invalid JSON %s", p)
		}
	})
}

// hiddenParam lists parameters bitcoin-cli converts that the server does
// not declare: Core's hidden test arguments.
var hiddenParam = map[string]bool{"stop wait": true}

// TestConvertTableCoversServer checks the table against the methods the
// daemon serves: every parameter the server declares as a number, boolean,
// object, array, amount or range is listed as JSON at its position and
// under its name (bitcoin-cli sends every unlisted argument as a string,
// which the server refuses where it checks the type: "createrawtransaction
// '[]' ..." would send the string "[]"), and every listed parameter of a
// served method names a parameter the server has at that position.
func TestConvertTableCoversServer(t *testing.T) {
	t.Parallel()
	for _, m := range methods.All(&methods.Deps{Net: &chaincfg.RegressionNetParams}) {
		if m.Passthrough {
			continue
		}
		for i, p := range m.Params {
			e := byPosition(m.Name, i)
			switch p.Type {
			case rpc.TypeNumber, rpc.TypeBool, rpc.TypeObject, rpc.TypeArray, rpc.TypeAmount, rpc.TypeRange:
				if e == nil || e.format == formatString {
					t.Errorf("%s position %d (%s, %s): not listed as JSON", m.Name, i, p.Name, p.Type)
				}
			}
			if e != nil && byName(m.Name, p.Name) == nil {
				t.Errorf("%s position %d: listed as %q, the server calls it %q", m.Name, i, e.name, p.Name)
			}
		}
		for _, e := range convertParams {
			if e.method == m.Name && e.index >= len(m.Params) && !hiddenParam[e.method+" "+e.name] && !slices.ContainsFunc(m.Params, func(p rpc.Param) bool { return slices.Contains(p.NamedOnly, e.name) }) {
				t.Errorf("%s: listed position %d (%s) beyond the server's %d parameters", m.Name, e.index, e.name, len(m.Params))
			}
		}
	}
}
