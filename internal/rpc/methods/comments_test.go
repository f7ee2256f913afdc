package methods

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// mapValueKeys are the keys of Core's mapValue among an object's keys, in
// their order.
func mapValueKeys(keys []string) []string {
	var out []string
	for _, k := range keys {
		switch k {
		case "comment", "replaced_by_txid", "replaces_txid", "to":
			out = append(out, k)
		}
	}
	return out
}

// TestSendComments checks Core's wallet comments: sendtoaddress's comment
// and comment_to and sendmany's comment are kept with the transaction
// (empty ones are not) and shown by gettransaction, listtransactions and
// listsinceblock as Core's mapValue, after bip125-replaceable in key order
// (comment, replaced_by_txid, replaces_txid, to); a fee bump copies them
// to the replacement; they survive a reload of the wallet, on both stores.
func TestSendComments(t *testing.T) {
	for _, kind := range corpusStores {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			opener := storeOpener(t, dir, kind)
			b := fundedNodeOn(t, dir, opener)
			const dest = "bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd"
			txid := func(method, params string) string {
				t.Helper()
				res, e := b.call(t, method, params)
				if e != nil {
					t.Fatalf("%s %s: %+v", method, params, e)
				}
				var id string
				json.Unmarshal(res, &id)
				return id
			}
			bumpOf := func(id string) string {
				t.Helper()
				res, e := b.call(t, "bumpfee", fmt.Sprintf(`[%q]`, id))
				if e != nil {
					t.Fatalf("bumpfee: %+v", e)
				}
				var r struct {
					TxID string `json:"txid"`
				}
				json.Unmarshal(res, &r)
				return r.TxID
			}
			empty := txid("sendtoaddress", fmt.Sprintf(`[%q, 0.1, "", ""]`, dest))
			both := txid("sendtoaddress", fmt.Sprintf(`[%q, 0.1, "comment value", "to value", false, true]`, dest))
			bothBump := bumpOf(both)
			many := txid("sendmany", fmt.Sprintf(`["", {%q: 0.1}, 1, "many comment"]`, dest))
			manyBump := bumpOf(many)

			check := func(id string, wantKeys []string, comment, to string) {
				t.Helper()
				res, e := b.call(t, "gettransaction", fmt.Sprintf(`[%q]`, id))
				if e != nil {
					t.Fatalf("gettransaction: %+v", e)
				}
				keys := objectKeys(t, res)
				if got := mapValueKeys(keys); !slices.Equal(got, wantKeys) {
					t.Fatalf("gettransaction %s: mapValue keys %v, want %v", id, got, wantKeys)
				}
				if i, j := slices.Index(keys, "bip125-replaceable"), slices.Index(keys, "details"); len(wantKeys) > 0 &&
					(slices.Index(keys, wantKeys[0]) != i+1 || slices.Index(keys, wantKeys[len(wantKeys)-1]) != j-1) {
					t.Fatalf("gettransaction %s: mapValue not between bip125-replaceable and details: %v", id, keys)
				}
				var v struct {
					Comment *string `json:"comment"`
					To      *string `json:"to"`
				}
				json.Unmarshal(res, &v)
				if (v.Comment != nil && *v.Comment != comment) || (v.To != nil && *v.To != to) {
					t.Fatalf("gettransaction %s: comment %v to %v", id, v.Comment, v.To)
				}
				// Every listtransactions and listsinceblock entry of
				// the transaction shows them, before abandoned.
				lists := map[string]string{"listtransactions": `["*", 100]`, "listsinceblock": `[]`}
				for method, params := range lists {
					res, e := b.call(t, method, params)
					if e != nil {
						t.Fatalf("%s: %+v", method, e)
					}
					var entries []json.RawMessage
					if method == "listsinceblock" {
						var r struct {
							Transactions []json.RawMessage `json:"transactions"`
						}
						json.Unmarshal(res, &r)
						entries = r.Transactions
					} else {
						json.Unmarshal(res, &entries)
					}
					seen := 0
					for _, en := range entries {
						var head struct {
							TxID string `json:"txid"`
						}
						json.Unmarshal(en, &head)
						if head.TxID != id {
							continue
						}
						seen++
						keys := objectKeys(t, en)
						if got := mapValueKeys(keys); !slices.Equal(got, wantKeys) {
							t.Fatalf("%s %s: mapValue keys %v, want %v", method, id, got, wantKeys)
						}
						if keys[len(keys)-1] != "abandoned" {
							t.Fatalf("%s %s: keys %v", method, id, keys)
						}
					}
					if seen == 0 {
						t.Fatalf("%s: no entry of %s", method, id)
					}
				}
			}
			checkAll := func() {
				t.Helper()
				check(both, []string{"comment", "replaced_by_txid", "to"}, "comment value", "to value")
				check(bothBump, []string{"comment", "replaces_txid", "to"}, "comment value", "to value")
				check(many, []string{"comment", "replaced_by_txid"}, "many comment", "")
				check(manyBump, []string{"comment", "replaces_txid"}, "many comment", "")
				check(empty, nil, "", "")
			}
			checkAll()

			// Reloaded from its store, the wallet shows the same.
			if _, e := b.call(t, "unloadwallet", `[]`); e != nil {
				t.Fatalf("unloadwallet: %+v", e)
			}
			if r := b.n.call(t, "/", "loadwallet", json.RawMessage(`["w"]`)); r.Error != nil {
				t.Fatalf("loadwallet: %+v", r.Error)
			}
			checkAll()
		})
	}
}
