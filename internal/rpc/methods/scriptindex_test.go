package methods

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// TestScriptIndexOnStores imports a range spanning several stored chunks
// into a watch-only wallet on each store, widens it by a second import and
// hands addresses out past the key pool, and checks that getaddressinfo
// answers the same on both stores for addresses at the edges of every
// part (and for one past the range, not the wallet's), before and after a
// restart. On PostgreSQL the wallet asks its database (no script index in
// memory) and the database's index has one row per script.
func TestScriptIndexOnStores(t *testing.T) {
	desc := descriptor.AddChecksum("wpkh(" + hugeTPub + "/0/*)")
	// Indexes to ask about: both ends of the first import (three chunks),
	// of the widened range, of the key pool past the handouts, and past
	// everything.
	// next_index 12 990 and 20 handouts with a key pool of 10 end the
	// derived range at 13 019, as on either store.
	const end = 13019
	probe := []int{0, 4095, 4096, 9999, 10000, 12345, 12999, end - 1, end, 20000}
	var addrs []string
	for _, i := range probe {
		params, _ := json.Marshal([]any{desc, []int{i, i}})
		n := newWalletNode(t, t.TempDir())
		r := n.call(t, "/", "deriveaddresses", params)
		n.mgr.Close()
		if r.Error != nil {
			t.Fatalf("deriveaddresses %d: %s", i, r.Error.Message)
		}
		var a []string
		if err := json.Unmarshal(r.Result, &a); err != nil || len(a) != 1 {
			t.Fatalf("deriveaddresses %d: %s", i, r.Result)
		}
		addrs = append(addrs, a[0])
	}
	answers := map[string][]string{}
	for _, kind := range corpusStores {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			opener := storeOpener(t, dir, kind)
			n := newWalletNodeOn(t, dir, 10, opener)
			if r := n.call(t, "/", "createwallet", json.RawMessage(`["w", true, true]`)); r.Error != nil {
				t.Fatal(r.Error.Message)
			}
			for _, rng := range [][2]int{{0, 9999}, {0, 12999}} {
				req, _ := json.Marshal([]any{[]any{map[string]any{"desc": desc, "timestamp": "now",
					"active": true, "range": rng}}})
				if r := n.call(t, "/wallet/w", "importdescriptors", req); r.Error != nil || !strings.Contains(string(r.Result), `"success":true`) {
					t.Fatalf("import %v: %s %v", rng, r.Result, r.Error)
				}
			}
			// Move the next index near the end with one import of
			// next_index, then hand out past the range.
			req, _ := json.Marshal([]any{[]any{map[string]any{"desc": desc, "timestamp": "now",
				"active": true, "range": []int{0, 12999}, "next_index": 12990}}})
			if r := n.call(t, "/wallet/w", "importdescriptors", req); r.Error != nil || !strings.Contains(string(r.Result), `"success":true`) {
				t.Fatalf("import next_index: %s %v", r.Result, r.Error)
			}
			for i := 0; i < 20; i++ {
				if r := n.call(t, "/wallet/w", "getnewaddress", json.RawMessage(`[]`)); r.Error != nil {
					t.Fatal(r.Error.Message)
				}
			}
			ask := func(n *walletNode) []string {
				var out []string
				for _, a := range addrs {
					params, _ := json.Marshal([]string{a})
					r := n.call(t, "/wallet/w", "getaddressinfo", params)
					if r.Error != nil {
						t.Fatalf("getaddressinfo %s: %s", a, r.Error.Message)
					}
					out = append(out, string(r.Result))
				}
				return out
			}
			before := ask(n)
			for i, a := range before {
				mine := strings.Contains(a, `"ismine":true`) || strings.Contains(a, `"iswatchonly":true`)
				if want := probe[i] < end; mine != want {
					t.Errorf("index %d: mine %v, want %v: %s", probe[i], mine, want, a)
				}
			}
			w, _ := n.mgr.Get("w")
			if got, want := w.ScriptsInStore(), kind == "postgres"; got != want {
				t.Errorf("scripts in store %v, want %v", got, want)
			}
			n.mgr.Close()

			n2 := newWalletNodeOn(t, dir, 10, opener)
			defer n2.mgr.Close()
			if r := n2.call(t, "/", "loadwallet", json.RawMessage(`["w"]`)); r.Error != nil {
				t.Fatal(r.Error.Message)
			}
			after := ask(n2)
			for i := range after {
				if after[i] != before[i] {
					t.Errorf("index %d after restart:\n got %s\nwant %s", probe[i], after[i], before[i])
				}
			}
			answers[kind] = before
			if kind == "postgres" {
				conn, err := pgx.Connect(t.Context(), pgDSN)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(t.Context())
				var rows int64
				if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM script_index s JOIN wallets w ON w.id = s.wallet_id
					WHERE w.namespace = $1 AND w.name = 'w'`, opener.(walletdb.PGOpener).Namespace).Scan(&rows); err != nil {
					t.Fatal(err)
				}
				if rows != end {
					t.Errorf("%d rows in the script index, want %d", rows, end)
				}
			}
		})
	}
	if len(answers) == 2 {
		for i := range probe {
			if answers["sqlite"][i] != answers["postgres"][i] {
				t.Errorf("index %d differs between stores:\nsqlite   %s\npostgres %s", probe[i], answers["sqlite"][i], answers["postgres"][i])
			}
		}
	}
}
