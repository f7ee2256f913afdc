package methods

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/testvec"
)

// coreArg is one parameter of Core's table (testdata/coreparams, made by
// scripts/coreparams from Core's RPCHelpMan declarations).
type coreArg struct {
	Name           string    `json:"name"`
	Type           string    `json:"type"`
	Optional       bool      `json:"optional"`
	SkipTypeCheck  bool      `json:"skip_type_check"`
	AlsoPositional bool      `json:"also_positional"`
	Inner          []coreArg `json:"inner"`
}

type coreConvert struct {
	Index  int    `json:"index"`
	Name   string `json:"name"`
	Format string `json:"format"`
}

type coreMethod struct {
	Name     string        `json:"name"`
	Category string        `json:"category"`
	Params   []coreArg     `json:"params"`
	CLI      []coreConvert `json:"cli_convert"`
}

func loadCoreParams(t *testing.T) map[string]coreMethod {
	t.Helper()
	var table struct {
		Methods []coreMethod `json:"methods"`
	}
	testvec.Load(t, "coreparams/core_rpc_params.json", &table)
	out := make(map[string]coreMethod, len(table.Methods))
	for _, m := range table.Methods {
		out[m.Name] = m
	}
	if len(out) < 150 {
		t.Fatalf("Core's table holds %d methods; expected Core's whole RPC surface", len(out))
	}
	return out
}

// coreTypeOf maps Core's RPCArg type onto the parameter type descwallet
// declares for it.
func coreTypeOf(t string) rpc.ParamType {
	switch t {
	case "STR":
		return rpc.TypeString
	case "STR_HEX":
		return rpc.TypeHex
	case "NUM":
		return rpc.TypeNumber
	case "BOOL":
		return rpc.TypeBool
	case "OBJ", "OBJ_NAMED_PARAMS", "OBJ_USER_KEYS":
		return rpc.TypeObject
	case "ARR":
		return rpc.TypeArray
	case "AMOUNT":
		return rpc.TypeAmount
	case "RANGE":
		return rpc.TypeRange
	}
	return 0
}

// coreCheck is the JSON type Core's top-level check requires of an
// argument (RPCArg::MatchesType), "" when it checks none.
func coreCheck(a coreArg) string {
	if a.SkipTypeCheck {
		return ""
	}
	switch a.Type {
	case "STR", "STR_HEX":
		return "string"
	case "NUM":
		return "number"
	case "BOOL":
		return "bool"
	case "OBJ", "OBJ_NAMED_PARAMS", "OBJ_USER_KEYS":
		return "object"
	case "ARR":
		return "array"
	}
	return ""
}

// ourCheck is the JSON type our top-level check requires (typeCheck in
// internal/rpc), "" when it checks none.
func ourCheck(p rpc.Param) string {
	if p.SkipTypeCheck {
		return ""
	}
	switch p.Type {
	case rpc.TypeString, rpc.TypeHex:
		return "string"
	case rpc.TypeNumber:
		return "number"
	case rpc.TypeBool:
		return "bool"
	case rpc.TypeObject:
		return "object"
	case rpc.TypeArray:
		return "array"
	}
	return ""
}

// paramDiffs lists how one declaration differs from Core's.
func paramDiffs(ours *rpc.Method, core coreMethod) []string {
	var d []string
	if len(ours.Params) != len(core.Params) {
		var on, cn []string
		for _, p := range ours.Params {
			on = append(on, p.Name)
		}
		for _, a := range core.Params {
			cn = append(cn, a.Name)
		}
		d = append(d, fmt.Sprintf("%d parameters (%s), Core %d (%s)", len(ours.Params), strings.Join(on, ", "), len(core.Params), strings.Join(cn, ", ")))
	}
	for i := range min(len(ours.Params), len(core.Params)) {
		p, a := ours.Params[i], core.Params[i]
		names := strings.Join(append([]string{p.Name}, p.Aliases...), "|")
		if names != a.Name {
			d = append(d, fmt.Sprintf("position %d named %q, Core %q", i+1, names, a.Name))
		}
		if want := coreTypeOf(a.Type); p.Type != want && !(a.SkipTypeCheck && p.Type == rpc.TypeAny) {
			d = append(d, fmt.Sprintf("%s: type %v, Core %s", a.Name, p.Type, a.Type))
		}
		if oc, cc := ourCheck(p), coreCheck(a); oc != cc {
			d = append(d, fmt.Sprintf("%s: top-level check %q, Core %q", a.Name, oc, cc))
		}
		if p.Optional != a.Optional {
			d = append(d, fmt.Sprintf("%s: optional %v, Core %v", a.Name, p.Optional, a.Optional))
		}
		var named []string
		if a.Type == "OBJ_NAMED_PARAMS" {
			for _, in := range a.Inner {
				named = append(named, in.Name)
			}
		}
		if !slices.Equal(p.NamedOnly, named) {
			d = append(d, fmt.Sprintf("%s: named options %v, Core %v", a.Name, p.NamedOnly, named))
		}
	}
	return d
}

// TestParamsMatchCore compares every method descwallet declares with
// Core's declaration of the same method: parameter names (and aliases) in
// order, types, the top-level type check, optionality, and the options a
// named call may give at the top level (OBJ_NAMED_PARAMS). Methods
// forwarded to bitcoind unchecked are Core's own; methods of Core that
// descwallet does not serve, and descwallet's own additions, are listed.
func TestParamsMatchCore(t *testing.T) {
	core := loadCoreParams(t)
	served := map[string]bool{}
	var extra []string
	checked := 0
	for _, m := range All(&Deps{Net: &chaincfg.RegressionNetParams}) {
		served[m.Name] = true
		if m.Passthrough {
			continue
		}
		c, ok := core[m.Name]
		if !ok {
			extra = append(extra, m.Name)
			continue
		}
		checked++
		// The help list groups methods under Core's category names.
		if m.Category != c.Category && m.Category != rpc.HiddenCategory {
			t.Errorf("%s: category %q, Core %q", m.Name, m.Category, c.Category)
		}
		for _, diff := range paramDiffs(m, c) {
			t.Errorf("%s: %s", m.Name, diff)
		}
	}
	var missing []string
	for name := range core {
		if !served[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	t.Logf("checked %d methods against Core's declarations", checked)
	t.Logf("Core methods not served (%d): %s", len(missing), strings.Join(missing, " "))
	t.Logf("descwallet methods Core lacks (%d): %s", len(extra), strings.Join(extra, " "))
}

type coreTypeCheck struct {
	Function  string            `json:"function"`
	AllowNull bool              `json:"allow_null"`
	Strict    bool              `json:"strict"`
	Fields    map[string]string `json:"fields"`
}

// TestOptionTypesMatchCore compares the member type tables of the option
// objects (Core's RPCTypeCheckObj calls, allowing null and refusing
// unknown keys) with descwallet's: the funding calls' options, bumpfee's
// and listunspent's query_options.
func TestOptionTypesMatchCore(t *testing.T) {
	var table struct {
		TypeChecks []coreTypeCheck `json:"type_checks"`
	}
	testvec.Load(t, "coreparams/core_rpc_params.json", &table)
	ours := map[string]map[string]string{
		"FundTransaction": fundOptionTypes, // fundrawtransaction, walletcreatefundedpsbt, send
		"bumpfee_helper":  bumpOptionTypes, // bumpfee, psbtbumpfee
		"listunspent":     unspentQueryTypes,
	}
	for _, c := range table.TypeChecks {
		o, ok := ours[c.Function]
		if !ok {
			continue
		}
		delete(ours, c.Function)
		if !c.AllowNull || !c.Strict {
			t.Errorf("%s: Core's check is allow_null %v strict %v; ours allows null and is strict", c.Function, c.AllowNull, c.Strict)
		}
		for k, want := range c.Fields {
			got, ok := o[k]
			if !ok {
				t.Errorf("%s: option %s (%q) missing", c.Function, k, want)
			} else if got != want {
				t.Errorf("%s: option %s of type %q, Core %q", c.Function, k, got, want)
			}
		}
		for k := range o {
			if _, ok := c.Fields[k]; !ok {
				t.Errorf("%s: option %s is not Core's", c.Function, k)
			}
		}
	}
	for f := range ours {
		t.Errorf("no RPCTypeCheckObj of %s in Core's table", f)
	}
}

// TestWrongTypesAsCore calls every served method with a wrong-typed value
// at each position Core type-checks, and expects Core's -3 "Wrong type
// passed" message built from Core's declarations (its names, its order,
// its expected types), so the check is Core's whatever our tables say;
// then makes the same call with named arguments (aliases used where Core
// has them).
func TestWrongTypesAsCore(t *testing.T) {
	core := loadCoreParams(t)
	n := newSpendNode(t, t.TempDir())
	t.Cleanup(func() { n.mgr.Close() })
	checked := 0
	for _, m := range All(&Deps{Net: &chaincfg.RegressionNetParams}) {
		c, ok := core[m.Name]
		if !ok || m.Passthrough || m.Name == "stop" {
			continue
		}
		var args, named []string
		var want []string
		for i, a := range c.Params {
			exp := coreCheck(a)
			val, got := "true", "bool"
			if exp == "bool" {
				val, got = "1", "number"
			}
			if exp == "" {
				// Not checked by Core: a value its reader accepts
				// is not needed, the type error comes first.
				val = "null"
				if !a.Optional {
					val = "true"
				}
			} else {
				want = append(want, fmt.Sprintf("    %q: %q", fmt.Sprintf("Position %d (%s)", i+1, a.Name),
					"JSON value of type "+got+" is not of expected type "+exp))
			}
			args = append(args, val)
			// The same call by name, each parameter under the last of
			// its names (an alias where Core has one).
			names := strings.Split(a.Name, "|")
			named = append(named, fmt.Sprintf("%q: %s", names[len(names)-1], val))
		}
		if len(want) == 0 {
			continue
		}
		checked++
		msg := "Wrong type passed:\n{\n" + strings.Join(want, ",\n") + "\n}"
		for _, params := range []string{"[" + strings.Join(args, ",") + "]", "{" + strings.Join(named, ",") + "}"} {
			body := n.rawCallPath("/", m.Name, json.RawMessage(params))
			var r struct {
				Error *rpcErr `json:"error"`
			}
			json.Unmarshal(body, &r)
			if r.Error == nil || r.Error.Code != -3 || r.Error.Message != msg {
				t.Errorf("%s %s: %s\nwant -3 %q", m.Name, params, body, msg)
			}
		}
	}
	t.Logf("%d methods' type checks compared", checked)
	if checked < 80 {
		t.Errorf("only %d methods checked", checked)
	}
}
