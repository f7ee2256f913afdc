package main

import (
	"testing"

	"github.com/descwallet/descwallet/internal/testvec"
)

// TestConvertTableMatchesCore compares the conversion table with
// bitcoin-cli's (Core's rpc/client.cpp vRPCConvertParams, extracted into
// testdata/coreparams): every entry of a method Core has must be Core's,
// with the same position, name and format, and every entry of Core's
// must be present (a method descwallet does not serve answers "Method not
// found" either way), so that a command line written for bitcoin-cli sends
// the same JSON. Entries of descwallet's own methods are not compared.
func TestConvertTableMatchesCore(t *testing.T) {
	t.Parallel()
	var table struct {
		Methods []struct {
			Name string `json:"name"`
			CLI  []struct {
				Index  int    `json:"index"`
				Name   string `json:"name"`
				Format string `json:"format"`
			} `json:"cli_convert"`
		} `json:"methods"`
	}
	testvec.Load(t, "coreparams/core_rpc_params.json", &table)
	formats := map[string]paramFormat{"JSON": formatJSON, "STRING": formatString, "JSON_OR_STRING": formatJSONOrString}
	type key struct {
		method, name string
		index        int
	}
	core := map[key]paramFormat{}
	coreMethods := map[string]bool{}
	for _, m := range table.Methods {
		coreMethods[m.Name] = true
		for _, c := range m.CLI {
			f, ok := formats[c.Format]
			if !ok {
				t.Fatalf("%s: unknown format %s", m.Name, c.Format)
			}
			core[key{m.Name, c.Name, c.Index}] = f
		}
	}
	if len(core) < 200 {
		t.Fatalf("bitcoin-cli's table holds %d entries; expected all of them", len(core))
	}
	ours := map[key]bool{}
	for _, p := range convertParams {
		k := key{p.method, p.name, p.index}
		ours[k] = true
		if !coreMethods[p.method] {
			continue
		}
		f, ok := core[k]
		switch {
		case !ok:
			t.Errorf("%s position %d (%s): not in bitcoin-cli's table", p.method, p.index, p.name)
		case f != p.format:
			t.Errorf("%s position %d (%s): format %d, bitcoin-cli's %d", p.method, p.index, p.name, p.format, f)
		}
	}
	for k := range core {
		if !ours[k] {
			t.Errorf("%s position %d (%s): in bitcoin-cli's table, not here", k.method, k.index, k.name)
		}
	}
}
