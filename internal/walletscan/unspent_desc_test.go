package walletscan_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // Bitcoin's HASH160

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

func hash160(b []byte) []byte {
	s := sha256.Sum256(b)
	r := ripemd160.New()
	r.Write(s[:])
	return r.Sum(nil)
}

// TestListUnspentDescriptors pays a wallet with private keys at its
// legacy, p2sh-segwit, bech32 and bech32m addresses and checks listunspent
// as Core shapes it: the field order, redeemScript only for the P2SH output,
// desc as Core's InferDescriptor writes it (the key with its origin: the
// wallet's fingerprint and the full derivation path, a checksum) holding the
// key that really pays the output, and parent_descs naming the active
// descriptor the address came from.
func TestListUnspentDescriptors(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	b := testenv.StartBtcd(t, nil)
	d := startNode(t, t.TempDir(), b)
	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "w")
	c := d.client("w")
	var ld struct {
		Descriptors []struct {
			Desc     string `json:"desc"`
			Active   bool   `json:"active"`
			Internal bool   `json:"internal"`
		} `json:"descriptors"`
	}
	call(t, c, &ld, "listdescriptors")

	types := []struct {
		addrType, wrap, purpose string
		keyLen                  int
	}{
		{"legacy", "pkh(", "44h", 66},
		{"p2sh-segwit", "sh(wpkh(", "49h", 66},
		{"bech32", "wpkh(", "84h", 66},
		{"bech32m", "tr(", "86h", 64},
	}
	var outs []*wire.TxOut
	addrs := map[string]int{}
	for i, ty := range types {
		var a string
		call(t, c, &a, "getnewaddress", "", ty.addrType)
		spk, err := address.Decode(a, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, wire.NewTxOut(int64(100_000*(i+1)), spk))
		addrs[a] = i
	}
	txid := b.Fund(outs...)
	b.Generate(1)
	waitSynced(t, c, b)

	raw, err := c.Call("listunspent")
	if err != nil {
		t.Fatal(err)
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(types) {
		t.Fatalf("listunspent has %d entries, want %d: %s", len(entries), len(types), raw)
	}
	seen := map[int]bool{}
	for _, e := range entries {
		var u struct {
			TxID          string   `json:"txid"`
			Address       string   `json:"address"`
			Label         *string  `json:"label"`
			RedeemScript  string   `json:"redeemScript"`
			WitnessScript *string  `json:"witnessScript"`
			ScriptPubKey  string   `json:"scriptPubKey"`
			Spendable     bool     `json:"spendable"`
			Solvable      bool     `json:"solvable"`
			Desc          string   `json:"desc"`
			ParentDescs   []string `json:"parent_descs"`
			Safe          bool     `json:"safe"`
		}
		if err := json.Unmarshal(e, &u); err != nil {
			t.Fatal(err)
		}
		i, ok := addrs[u.Address]
		if !ok || u.TxID != txid {
			t.Errorf("unexpected entry %s", e)
			continue
		}
		seen[i] = true
		ty := types[i]
		wantOrder := []string{"txid", "vout", "address", "label", "scriptPubKey", "amount", "confirmations",
			"spendable", "solvable", "desc", "parent_descs", "safe"}
		if ty.addrType == "p2sh-segwit" {
			wantOrder = append(wantOrder[:4], append([]string{"redeemScript"}, wantOrder[4:]...)...)
		}
		if got := jsonKeys(t, e); strings.Join(got, ",") != strings.Join(wantOrder, ",") {
			t.Errorf("%s entry fields %v, want %v", ty.addrType, got, wantOrder)
		}
		if u.Label == nil || *u.Label != "" || !u.Spendable || !u.Solvable || !u.Safe || u.WitnessScript != nil {
			t.Errorf("%s entry %s", ty.addrType, e)
		}

		// parent_descs: the active receive descriptor of the type.
		var parent string
		for _, dd := range ld.Descriptors {
			if dd.Active && !dd.Internal && strings.HasPrefix(dd.Desc, ty.wrap+"[") {
				parent = dd.Desc
			}
		}
		if parent == "" || len(u.ParentDescs) != 1 || u.ParentDescs[0] != parent {
			t.Errorf("%s parent_descs %v, want [%s]", ty.addrType, u.ParentDescs, parent)
		}
		// desc: the parent's origin extended by the key's path.
		fp := parent[len(ty.wrap)+1 : len(ty.wrap)+9]
		re := regexp.MustCompile(`^` + regexp.QuoteMeta(ty.wrap+"["+fp+"/"+ty.purpose+"/1h/0h/0/0]") +
			`([0-9a-f]+)` + regexp.QuoteMeta(strings.Repeat(")", strings.Count(ty.wrap, "("))) + `#[a-z0-9]{8}$`)
		m := re.FindStringSubmatch(u.Desc)
		if m == nil || len(m[1]) != ty.keyLen {
			t.Errorf("%s desc %q does not match %s", ty.addrType, u.Desc, re)
			continue
		}
		if descriptor.AddChecksum(u.Desc[:strings.IndexByte(u.Desc, '#')]) != u.Desc {
			t.Errorf("%s desc %q: bad checksum", ty.addrType, u.Desc)
		}
		key, _ := hex.DecodeString(m[1])
		spk, _ := hex.DecodeString(u.ScriptPubKey)
		switch ty.addrType {
		case "legacy":
			if !bytes.Equal(spk[3:23], hash160(key)) {
				t.Errorf("legacy desc key %x does not pay %x", key, spk)
			}
		case "p2sh-segwit":
			redeem := append([]byte{0, 20}, hash160(key)...)
			if u.RedeemScript != hex.EncodeToString(redeem) || !bytes.Equal(spk[2:22], hash160(redeem)) {
				t.Errorf("p2sh-segwit redeemScript %s, desc key %x, script %x", u.RedeemScript, key, spk)
			}
		case "bech32":
			if !bytes.Equal(spk[2:], hash160(key)) {
				t.Errorf("bech32 desc key %x does not pay %x", key, spk)
			}
		case "bech32m":
			pk, err := schnorr.ParsePubKey(key)
			if err != nil {
				t.Fatal(err)
			}
			if out := schnorr.SerializePubKey(txscript.ComputeTaprootKeyNoScript(pk)); !bytes.Equal(spk[2:], out) {
				t.Errorf("bech32m desc internal key %x does not pay %x", key, spk)
			}
		}
		var ai struct {
			Desc string `json:"desc"`
		}
		call(t, c, &ai, "getaddressinfo", u.Address)
		if ai.Desc != u.Desc {
			t.Errorf("%s desc %q, getaddressinfo says %q", ty.addrType, u.Desc, ai.Desc)
		}
	}
	if len(seen) != len(types) {
		t.Errorf("entries found for %d of %d address types", len(seen), len(types))
	}
}

// jsonKeys returns an object's keys in their order.
func jsonKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestRescanBlockchainLockedWallet checks that rescanblockchain on a locked
// encrypted wallet answers Core's -13, and scans once the wallet is
// unlocked.
func TestRescanBlockchainLockedWallet(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	b := testenv.StartBtcd(t, nil)
	b.Generate(3)
	d := startNode(t, t.TempDir(), b)
	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "enc", false, false, "pw")
	c := d.client("enc")
	_, err := c.Call("rescanblockchain")
	var re *testenv.RPCError
	if !errors.As(err, &re) || re.Code != -13 ||
		re.Message != "Error: Please enter the wallet passphrase with walletpassphrase first." {
		t.Fatalf("rescanblockchain on a locked wallet: %v", err)
	}
	var null json.RawMessage
	call(t, c, &null, "walletpassphrase", "pw", 100)
	var res struct {
		Start int64 `json:"start_height"`
		Stop  int64 `json:"stop_height"`
	}
	call(t, c, &res, "rescanblockchain")
	if res.Start != 0 || res.Stop != 3 {
		t.Errorf("rescanblockchain %+v", res)
	}
}
