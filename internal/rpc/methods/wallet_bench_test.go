package methods

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
)

// BenchmarkImportRange imports wpkh(tpub/0/*) over [0, 99999] into a fresh
// watch-only wallet (derivation, digests, SQLite) per iteration.
func BenchmarkImportRange(b *testing.B) { benchmarkImport(b, 99999) }

// BenchmarkImportRange1M imports the range [0, 999999]; run it alone
// (-benchtime=1x) under /usr/bin/time -v for the peak RSS.
func BenchmarkImportRange1M(b *testing.B) { benchmarkImport(b, 999999) }

func benchmarkImport(b *testing.B, end int64) {
	desc := descriptor.AddChecksum("wpkh(" + hugeTPub + "/0/*)")
	req, _ := json.Marshal([]any{[]any{map[string]any{"desc": desc, "timestamp": 1700000000,
		"active": true, "range": []int64{0, end}}}})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		n := newWalletNode(b, b.TempDir())
		n.call(b, "/", "createwallet", json.RawMessage(`["w", true, true]`))
		b.StartTimer()
		r := n.call(b, "/wallet/w", "importdescriptors", req)
		if r.Error != nil || !strings.Contains(string(r.Result), `"success":true`) {
			b.Fatalf("import: %s", r.Result)
		}
		b.StopTimer()
		n.mgr.Close()
		b.StartTimer()
	}
}

// BenchmarkExpandRangeRaw is the raw expansion of the same range, the
// reference for BenchmarkImportRange.
func BenchmarkExpandRangeRaw(b *testing.B) {
	desc := descriptor.AddChecksum("wpkh(" + hugeTPub + "/0/*)")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d, err := descriptor.Parse(desc, &chaincfg.RegressionNetParams)
		if err != nil {
			b.Fatal(err)
		}
		for lo := uint32(0); lo < 100000; lo += 4096 {
			hi := lo + 4095
			if hi > 99999 {
				hi = 99999
			}
			if _, err := d.ExpandRange(lo, hi, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkGetAddressInfo answers getaddressinfo for one wallet address
// through the full request path.
func BenchmarkGetAddressInfo(b *testing.B) {
	n := newWalletNode(b, b.TempDir())
	defer n.mgr.Close()
	n.call(b, "/", "createwallet", json.RawMessage(`["w", true, true]`))
	desc := descriptor.AddChecksum("wpkh(" + hugeTPub + "/0/*)")
	req, _ := json.Marshal([]any{[]any{map[string]any{"desc": desc, "timestamp": 1700000000, "active": true}}})
	n.call(b, "/wallet/w", "importdescriptors", req)
	r := n.call(b, "/wallet/w", "getnewaddress", json.RawMessage(`[]`))
	params, _ := json.Marshal([]json.RawMessage{r.Result})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n.call(b, "/wallet/w", "getaddressinfo", params)
	}
}
