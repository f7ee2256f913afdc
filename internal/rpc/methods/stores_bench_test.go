package methods

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/descriptor"
)

// BenchmarkImportRangeOnStores imports wpkh(tpub/0/*) over [0, 99999]
// into a fresh watch-only wallet on each store.
func BenchmarkImportRangeOnStores(b *testing.B) {
	desc := descriptor.AddChecksum("wpkh(" + hugeTPub + "/0/*)")
	req, _ := json.Marshal([]any{[]any{map[string]any{"desc": desc, "timestamp": 1700000000,
		"active": true, "range": []int64{0, 99999}}}})
	for _, kind := range corpusStores {
		b.Run(kind, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := b.TempDir()
				n := newWalletNodeOn(b, dir, 0, storeOpener(b, dir, kind))
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
		})
	}
}

// BenchmarkGetAddressInfoOnStores answers getaddressinfo for one wallet
// address through the full request path, the wallet on each store.
func BenchmarkGetAddressInfoOnStores(b *testing.B) {
	for _, kind := range corpusStores {
		b.Run(kind, func(b *testing.B) {
			dir := b.TempDir()
			n := newWalletNodeOn(b, dir, 0, storeOpener(b, dir, kind))
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
		})
	}
}
