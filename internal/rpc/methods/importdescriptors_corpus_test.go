package methods

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testvec"
)

// importCorpus is testdata/importdescriptors_rpc.json.
type importCorpus struct {
	Cases []struct {
		ID            string          `json:"id"`
		Order         int             `json:"order"`
		Wallet        string          `json:"wallet"`
		WalletOptions map[string]bool `json:"wallet_options"`
		Requests      json.RawMessage `json:"requests"`
		Expected      []struct {
			Success bool `json:"success"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
			Warnings        *[]string `json:"warnings"`
			WarningsInclude []string  `json:"warnings_include"`
		} `json:"expected"`
	} `json:"cases"`
	DerivationFacts []struct {
		Descriptor        string            `json:"descriptor"`
		AddressesByIndex  map[string]string `json:"addresses_by_index"`
		DescPrefixByIndex map[string]string `json:"getaddressinfo_desc_prefix_by_index"`
		HowAsserted       string            `json:"how_asserted"`
	} `json:"derivation_facts"`
}

var (
	keyPlaceholder      = regexp.MustCompile(`<KEY(\d+)\.pubkey>`)
	checksumPlaceholder = regexp.MustCompile(`"([^"]*)#<checksum>"`)
)

// placeholderKeys hands out one fresh compressed public key per
// placeholder number.
type placeholderKeys map[string]string

func (k placeholderKeys) fill(t *testing.T, s string) string {
	t.Helper()
	s = keyPlaceholder.ReplaceAllStringFunc(s, func(m string) string {
		n := keyPlaceholder.FindStringSubmatch(m)[1]
		if pub, ok := k[n]; ok {
			return pub
		}
		priv, err := btcec.NewPrivateKey()
		if err != nil {
			t.Fatal(err)
		}
		k[n] = hex.EncodeToString(priv.PubKey().SerializeCompressed())
		return k[n]
	})
	return s
}

// fillRequests replaces the corpus placeholders of a request array: keys,
// checksums of the string before "#<checksum>", and the current time.
func (k placeholderKeys) fillRequests(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	s := k.fill(t, string(raw))
	s = checksumPlaceholder.ReplaceAllStringFunc(s, func(m string) string {
		var body string
		if err := json.Unmarshal([]byte(m[:len(m)-len(`#<checksum>"`)]+`"`), &body); err != nil {
			t.Fatalf("placeholder in %s: %v", m, err)
		}
		out, _ := json.Marshal(descriptor.AddChecksum(body))
		return string(out)
	})
	s = strings.ReplaceAll(s, `"<unix time now>"`, strconv.FormatInt(time.Now().Unix(), 10))
	if strings.Contains(s, "<") && keyPlaceholder.MatchString(s) {
		t.Fatalf("unfilled placeholder in %s", s)
	}
	return json.RawMessage(s)
}

// corpusKeypool is the -keypool of the node Core's functional test runs
// these imports on.
const corpusKeypool = 5

// TestImportDescriptorsCorpus replays the importdescriptors calls of Core's
// functional test in order, on a node with its -keypool, each wallet
// created with the options the test used, and checks every element's
// success, error and warnings; on each wallet store.
func TestImportDescriptorsCorpus(t *testing.T) {
	var corpus importCorpus
	testvec.Load(t, "importdescriptors_rpc.json", &corpus)
	sort.SliceStable(corpus.Cases, func(i, j int) bool { return corpus.Cases[i].Order < corpus.Cases[j].Order })
	for _, kind := range corpusStores {
		t.Run(kind, func(t *testing.T) {
			t.Parallel() // each store on its own node
			replayImportCorpus(t, corpus, kind)
		})
	}
}

// replayImportCorpus replays the corpus on a fresh node with its wallets
// on the store kind.
func replayImportCorpus(t *testing.T, corpus importCorpus, kind string) {
	dir := t.TempDir()
	n := newWalletNodeOn(t, dir, corpusKeypool, storeOpener(t, dir, kind))
	defer n.mgr.Close()
	keys := placeholderKeys{}
	created := map[string]bool{}
	for _, c := range corpus.Cases {
		if f, ok := testvec.Pending(c.ID); ok {
			t.Logf("%s: pending on feature %s", c.ID, f)
			continue
		}
		if !created[c.Wallet] {
			params := []any{c.Wallet}
			if len(c.WalletOptions) > 0 {
				params = append(params, c.WalletOptions["disable_private_keys"], c.WalletOptions["blank"])
			}
			p, _ := json.Marshal(params)
			if r := n.call(t, "/", "createwallet", p); r.Error != nil {
				t.Fatalf("%s: createwallet %s: %d %s", c.ID, p, r.Error.Code, r.Error.Message)
			}
			created[c.Wallet] = true
		}
		reqs := keys.fillRequests(t, c.Requests)
		params, _ := json.Marshal([]json.RawMessage{reqs})
		r := n.call(t, walletPath(&c.Wallet), "importdescriptors", params)
		if r.Error != nil {
			t.Errorf("%s: call failed: %d %s", c.ID, r.Error.Code, r.Error.Message)
			continue
		}
		var got []struct {
			Success bool `json:"success"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal(r.Result, &got); err != nil {
			t.Fatalf("%s: %s: %v", c.ID, r.Result, err)
		}
		if len(got) != len(c.Expected) {
			t.Errorf("%s: %d results, want %d: %s", c.ID, len(got), len(c.Expected), r.Result)
			continue
		}
		for i, want := range c.Expected {
			g := got[i]
			ctx := fmt.Sprintf("%s element %d (%s)", c.ID, i, r.Result)
			if g.Success != want.Success {
				t.Errorf("%s: success %v, want %v", ctx, g.Success, want.Success)
			}
			switch {
			case want.Error == nil && g.Error != nil:
				t.Errorf("%s: unexpected error", ctx)
			case want.Error != nil && g.Error == nil:
				t.Errorf("%s: no error, want %d %q", ctx, want.Error.Code, want.Error.Message)
			case want.Error != nil:
				msg := keys.fill(t, want.Error.Message)
				if g.Error.Code != want.Error.Code || g.Error.Message != msg {
					t.Errorf("%s: error %d %q, want %d %q", ctx, g.Error.Code, g.Error.Message, want.Error.Code, msg)
				}
			}
			if want.Warnings != nil {
				w := append([]string{}, *want.Warnings...)
				gw := append([]string{}, g.Warnings...)
				sort.Strings(w)
				sort.Strings(gw)
				if strings.Join(w, "\n") != strings.Join(gw, "\n") {
					t.Errorf("%s: warnings %q, want %q", ctx, g.Warnings, w)
				}
			}
			if len(want.WarningsInclude) > 0 && (len(g.Warnings) == 0 || g.Warnings[0] != want.WarningsInclude[0]) {
				t.Errorf("%s: warnings %q, want first %q", ctx, g.Warnings, want.WarningsInclude[0])
			}
		}
	}
}

// TestImportDescriptorsDerivationFacts imports each descriptor of the
// corpus's derivation facts active and checks that the wallet hands out
// the recorded address at each index (getnewaddress, or
// getrawchangeaddress for the change side, after a re-import with
// next_index at that index), that the address is the wallet's, and that
// its inferred desc starts with the recorded prefix.
func TestImportDescriptorsDerivationFacts(t *testing.T) {
	var corpus importCorpus
	testvec.Load(t, "importdescriptors_rpc.json", &corpus)
	if len(corpus.DerivationFacts) == 0 {
		t.Fatal("no derivation facts")
	}
	dir := t.TempDir()
	n := newWalletNodeKeypool(t, dir, corpusKeypool)
	defer n.mgr.Close()
	for fi, f := range corpus.DerivationFacts {
		name := fmt.Sprintf("fact%d", fi)
		watchOnly := !strings.Contains(f.Descriptor, "tprv")
		p, _ := json.Marshal([]any{name, watchOnly, true})
		if r := n.call(t, "/", "createwallet", p); r.Error != nil {
			t.Fatalf("createwallet: %s", r.Error.Message)
		}
		change := strings.Contains(f.HowAsserted, "getrawchangeaddress")
		typ := "bech32"
		if strings.HasPrefix(f.Descriptor, "pkh(") {
			typ = "legacy"
		}
		path := walletPath(&name)
		for idxStr, want := range f.AddressesByIndex {
			idx, _ := strconv.Atoi(idxStr)
			req := map[string]any{"desc": f.Descriptor, "active": true, "range": []int{0, 9},
				"next_index": idx, "timestamp": 1700000000}
			if change {
				req["internal"] = true
			}
			params, _ := json.Marshal([]any{[]any{req}})
			r := n.call(t, path, "importdescriptors", params)
			if r.Error != nil || !strings.Contains(string(r.Result), `"success":true`) {
				t.Fatalf("%s: import: %s %v", f.Descriptor, r.Result, r.Error)
			}
			method, params := "getnewaddress", json.RawMessage(`["", "`+typ+`"]`)
			if change {
				method, params = "getrawchangeaddress", json.RawMessage(`["`+typ+`"]`)
			}
			r = n.call(t, path, method, params)
			var got string
			if r.Error != nil || json.Unmarshal(r.Result, &got) != nil {
				t.Fatalf("%s %s: %s %v", f.Descriptor, method, r.Result, r.Error)
			}
			if got != want {
				t.Errorf("%s index %d: %s gave %s, want %s", f.Descriptor, idx, method, got, want)
			}
			r = n.call(t, path, "getaddressinfo", json.RawMessage(`["`+want+`"]`))
			var info struct {
				IsMine bool   `json:"ismine"`
				Desc   string `json:"desc"`
			}
			if r.Error != nil || json.Unmarshal(r.Result, &info) != nil {
				t.Fatalf("getaddressinfo %s: %s %v", want, r.Result, r.Error)
			}
			if !info.IsMine {
				t.Errorf("%s: not mine", want)
			}
			if pre, ok := f.DescPrefixByIndex[idxStr]; ok && !strings.HasPrefix(info.Desc, pre) {
				t.Errorf("%s: desc %s, want prefix %s", want, info.Desc, pre)
			}
		}
	}
}
