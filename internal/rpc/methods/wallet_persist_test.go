package methods

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testvec"
)

type readStep struct {
	path, method string
	params       json.RawMessage
}

// answers runs the read-only steps and returns their replies.
func (n *walletNode) answers(t *testing.T, steps []readStep) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		r := n.call(t, s.path, s.method, s.params)
		b, _ := json.Marshal(r)
		out[i] = string(b)
	}
	return out
}

// TestWalletRestartAndBackup replays every scenario, then checks that the
// wallets answer the same after a restart (a new node over the same data
// directory) and after a backup is restored into a new wallet.
func TestWalletRestartAndBackup(t *testing.T) {
	var file struct {
		Scenarios []walletScenario `json:"scenarios"`
	}
	testvec.Load(t, "core_rpc/wallet.json", &file)
	for _, sc := range file.Scenarios {
		t.Run(sc.ID, func(t *testing.T) {
			if f, ok := testvec.Pending(sc.ID); ok {
				t.Logf("pending on feature %s", f)
				return
			}
			dir := t.TempDir()
			n := newWalletNode(t, dir)
			var reads []readStep
			for _, st := range sc.Steps {
				path := walletPath(st.Wallet)
				n.call(t, path, st.Method, st.Params)
				if st.Method == "getaddressinfo" || st.Method == "listdescriptors" || st.Method == "getwalletinfo" {
					reads = append(reads, readStep{path, st.Method, st.Params})
				}
			}
			names := n.mgr.List()
			before := n.answers(t, reads)

			// Backups of every wallet, taken while it is loaded.
			backups := map[string]string{}
			for i, name := range names {
				file := filepath.Join(t.TempDir(), "backup.sqlite")
				p := name
				r := n.call(t, walletPath(&p), "backupwallet", json.RawMessage(`["`+strings.ReplaceAll(file, `\`, `\\`)+`"]`))
				if r.Error != nil {
					t.Fatalf("backupwallet %q: %d %s", name, r.Error.Code, r.Error.Message)
				}
				backups[name] = file
				_ = i
			}
			if err := n.mgr.Close(); err != nil {
				t.Fatal(err)
			}

			// Restart: a new node loads the same wallets.
			n2 := newWalletNode(t, dir)
			for _, name := range names {
				params, _ := json.Marshal([]string{name})
				if r := n2.call(t, "/", "loadwallet", params); r.Error != nil {
					t.Fatalf("loadwallet %q: %d %s", name, r.Error.Code, r.Error.Message)
				}
			}
			after := n2.answers(t, reads)
			for i := range reads {
				if after[i] != before[i] {
					t.Errorf("after restart, %s %s on %s:\n got %s\nwant %s", reads[i].method, reads[i].params, reads[i].path, after[i], before[i])
				}
			}
			n2.mgr.Close()

			// Restore each backup into a fresh node under the same name.
			n3 := newWalletNode(t, t.TempDir())
			defer n3.mgr.Close()
			for _, name := range names {
				params, _ := json.Marshal([]string{name, backups[name]})
				if r := n3.call(t, "/", "restorewallet", params); r.Error != nil {
					t.Fatalf("restorewallet %q: %d %s", name, r.Error.Code, r.Error.Message)
				}
			}
			restored := n3.answers(t, reads)
			for i := range reads {
				if restored[i] != before[i] {
					t.Errorf("after restore, %s %s on %s:\n got %s\nwant %s", reads[i].method, reads[i].params, reads[i].path, restored[i], before[i])
				}
			}
		})
	}
}

const hugeTPub = "tpubD6NzVbkrYhZ4XGZMHMtmeMYqg1jJpWcdPvmiNqS38SUJRBVM8K3xtzDDraCyg6yJbBwvSANbnTWNBafogsvhZA3tDd9uqf5ZcTZK3xezHdV"

// TestWalletHugeRanges imports ranges where Core aborts or hangs: near
// 2^31, and starting high. Only the range and key pool are derived.
func TestWalletHugeRanges(t *testing.T) {
	for _, tc := range []struct {
		name           string
		begin, end     int64
		wantEnd        int64
		first, last    uint32
		belowStartMine bool
	}{
		{"near-2^31", 2147483640, 2147483647, 2147483647, 2147483640, 2147483647, false},
		{"high-start", 2147482640, 2147482647, 2147483639, 2147482640, 2147483639, false},
		{"mid-start", 5000, 5005, 5999, 5000, 5999, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newWalletNode(t, t.TempDir())
			defer n.mgr.Close()
			if r := n.call(t, "/", "createwallet", json.RawMessage(`["w", true, true]`)); r.Error != nil {
				t.Fatal(r.Error.Message)
			}
			desc := descriptor.AddChecksum("wpkh(" + hugeTPub + "/0/*)")
			req, _ := json.Marshal([]any{[]any{map[string]any{"desc": desc, "timestamp": 1700000000,
				"active": true, "range": []int64{tc.begin, tc.end}}}})
			start := time.Now()
			r := n.call(t, "/wallet/w", "importdescriptors", req)
			elapsed := time.Since(start)
			if r.Error != nil || !strings.Contains(string(r.Result), `"success":true`) {
				t.Fatalf("import: %s %+v", r.Result, r.Error)
			}
			if elapsed > 20*time.Second {
				t.Errorf("import took %v", elapsed)
			}
			r = n.call(t, "/wallet/w", "listdescriptors", json.RawMessage(`[]`))
			var ld struct {
				Descriptors []struct {
					Range [2]int64 `json:"range"`
				} `json:"descriptors"`
			}
			if err := json.Unmarshal(r.Result, &ld); err != nil || len(ld.Descriptors) != 1 {
				t.Fatalf("listdescriptors: %s", r.Result)
			}
			if got := ld.Descriptors[0].Range; got != [2]int64{tc.begin, tc.wantEnd} {
				t.Errorf("stored range %v, want [%d,%d]", got, tc.begin, tc.wantEnd)
			}
			d, err := descriptor.Parse(desc, &chaincfg.RegressionNetParams)
			if err != nil {
				t.Fatal(err)
			}
			check := func(index uint32, want bool) {
				outs, err := d.Expand(index, nil)
				if err != nil {
					t.Fatal(err)
				}
				a, _ := address.Encode(outs[0].ScriptPubKey, &chaincfg.RegressionNetParams)
				params, _ := json.Marshal([]string{a})
				r := n.call(t, "/wallet/w", "getaddressinfo", params)
				var info struct {
					IsMine bool `json:"ismine"`
				}
				if r.Error != nil || json.Unmarshal(r.Result, &info) != nil {
					t.Fatalf("getaddressinfo %s: %s %+v", a, r.Result, r.Error)
				}
				if info.IsMine != want {
					t.Errorf("index %d: ismine %v, want %v", index, info.IsMine, want)
				}
			}
			check(tc.first, true)
			check(tc.last, true)
			check(tc.first-1, false)
			if tc.last < 1<<31-1 {
				check(tc.last+1, false)
			}
		})
	}
}
