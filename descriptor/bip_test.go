package descriptor

import (
	"crypto/hmac"
	"crypto/sha512"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/descwallet/descwallet/internal/testvec"
)

// masterKey is BIP 32's master key generation from a seed.
func masterKey(t *testing.T, seed []byte) *extKey {
	t.Helper()
	m := hmac.New(sha512.New, []byte("Bitcoin seed"))
	m.Write(seed)
	i := m.Sum(nil)
	var priv [32]byte
	copy(priv[:], i[:32])
	pub, ok := privToPub(&priv)
	if !ok {
		t.Fatal("invalid master key")
	}
	k := &extKey{priv: &priv}
	copy(k.chain[:], i[32:])
	copy(k.pub[:], pub)
	return k
}

func parseTestPath(t *testing.T, s string) []uint32 {
	t.Helper()
	var path []uint32
	for _, e := range strings.Split(s, "/")[1:] {
		h := strings.HasSuffix(e, "H")
		n, err := strconv.ParseUint(strings.TrimSuffix(e, "H"), 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		if h {
			n |= uint64(hardenedFlag)
		}
		path = append(path, uint32(n))
	}
	return path
}

func TestBIP32Vectors(t *testing.T) {
	var v struct {
		Vectors []struct {
			Vector int    `json:"vector"`
			Seed   string `json:"seed_hex"`
			Chains []struct {
				Path   string `json:"path"`
				ExtPub string `json:"ext_pub"`
				ExtPrv string `json:"ext_prv"`
			} `json:"chains"`
		} `json:"vectors"`
		Invalid []struct {
			Key    string `json:"key"`
			Reason string `json:"reason"`
		} `json:"invalid_extended_keys"`
	}
	testvec.Load(t, "bip32.json", &v)
	net := &chaincfg.MainNetParams
	for _, vec := range v.Vectors {
		seed, _ := hex.DecodeString(vec.Seed)
		master := masterKey(t, seed)
		for _, c := range vec.Chains {
			path := parseTestPath(t, c.Path)
			k, _, err := master.derivePath(path)
			if err != nil {
				t.Fatalf("vector %d %s: %v", vec.Vector, c.Path, err)
			}
			if got := k.xprv(net); got != c.ExtPrv {
				t.Errorf("vector %d %s xprv\n got %s\nwant %s", vec.Vector, c.Path, got, c.ExtPrv)
			}
			if got := k.xpub(net); got != c.ExtPub {
				t.Errorf("vector %d %s xpub\n got %s\nwant %s", vec.Vector, c.Path, got, c.ExtPub)
			}
			// Both strings decode and print back unchanged.
			for _, s := range []string{c.ExtPrv, c.ExtPub} {
				d, ok := decodeExtKey(s, net)
				if !ok {
					t.Errorf("decode %s failed", s)
					continue
				}
				if d.priv != nil && d.xprv(net) != s || d.priv == nil && d.xpub(net) != s {
					t.Errorf("round trip of %s", s)
				}
			}
			// Public derivation of the unhardened tail agrees.
			if n := len(path); n > 0 && path[n-1]&hardenedFlag == 0 {
				parent, _, _ := master.derivePath(path[:n-1])
				pd, err := newPubDeriver(parent.neuter())
				if err != nil {
					t.Fatal(err)
				}
				ck, err := pd.childKey(path[n-1])
				if err != nil || ck.xpub(net) != c.ExtPub {
					t.Errorf("vector %d %s public derivation mismatch (%v)", vec.Vector, c.Path, err)
				}
			}
		}
	}
	for _, c := range v.Invalid {
		if _, ok := decodeExtKey(c.Key, net); ok {
			t.Errorf("%s (%s) decodes", c.Key, c.Reason)
		}
		_, err := Parse("pk("+c.Key+")", net)
		want := "pk(): key '" + c.Key + "' is not valid"
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %q, want %q", c.Reason, errString(err), want)
		}
	}
}

func TestBIP84BIP86(t *testing.T) {
	type block map[string]any
	var v struct {
		BIP84 struct {
			Blocks []block `json:"blocks"`
		} `json:"bip84"`
		BIP86 struct {
			Blocks []block `json:"blocks"`
			Forms  struct {
				Cases []struct {
					Descriptor string            `json:"descriptor"`
					Scripts    map[string]string `json:"scripts_by_index"`
					Checksum   string            `json:"checksum"`
				} `json:"cases"`
			} `json:"descriptor_forms"`
		} `json:"bip86"`
	}
	testvec.Load(t, "bip84_bip86.json", &v)
	net := &chaincfg.MainNetParams
	str := func(b block, k string) string { s, _ := b[k].(string); return s }

	check := func(desc string, idx uint32, b block, wantSPK string) {
		t.Helper()
		d, err := Parse(desc, net)
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		outs, err := d.Expand(idx, nil)
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		o := outs[0]
		if got := hex.EncodeToString(o.ScriptPubKey); got != wantSPK {
			t.Errorf("%s/%d: spk %s, want %s", desc, idx, got, wantSPK)
		}
		if wif := str(b, "privkey"); wif != "" && strings.HasPrefix(desc, "wpkh(xprv") {
			w, ok := decodeWIF(wif, net)
			if !ok || len(o.Keys) != 1 || hex.EncodeToString(o.Keys[0].PrivKey) != hex.EncodeToString(w.priv[:]) {
				t.Errorf("%s/%d: private key mismatch", desc, idx)
			}
			if hex.EncodeToString(o.Keys[0].PubKey) != str(b, "pubkey") {
				t.Errorf("%s/%d: pubkey mismatch", desc, idx)
			}
		}
		if ik := str(b, "internal_key"); ik != "" {
			if o.Taproot == nil || hex.EncodeToString(o.Taproot.InternalKey[:]) != ik ||
				hex.EncodeToString(o.Taproot.OutputKey[:]) != str(b, "output_key") {
				t.Errorf("%s/%d: taproot keys mismatch", desc, idx)
			}
		}
	}
	b84 := v.BIP84.Blocks
	root84 := str(b84[0], "rootpriv_as_xkey")
	acct84 := str(b84[1], "xpub_as_xkey")
	cases84 := []struct {
		branch, idx uint32
		blk         block
	}{{0, 0, b84[2]}, {0, 1, b84[3]}, {1, 0, b84[4]}}
	for _, c := range cases84 {
		spk := str(c.blk, "scriptPubKey_derived")
		check("wpkh("+root84+"/84'/0'/0'/"+strconv.Itoa(int(c.branch))+"/*)", c.idx, c.blk, spk)
		check("wpkh("+acct84+"/"+strconv.Itoa(int(c.branch))+"/*)", c.idx, c.blk, spk)
	}
	if got := str(b84[1], "xpriv_as_xkey"); got != "" {
		d, err := Parse("wpkh("+root84+"/84h/0h/0h/0/*)", net)
		if err != nil {
			t.Fatal(err)
		}
		n, err := d.NormalizedString(nil)
		if err != nil || !strings.Contains(n, "]"+acct84+"/0/*)") {
			t.Errorf("normalized %s (%v) lacks the account xpub", n, err)
		}
	}
	b86 := v.BIP86.Blocks
	root86 := str(b86[0], "rootpriv")
	for i, blk := range b86[2:] {
		branch, idx := "0", uint32(i)
		if strings.Contains(str(blk, "label"), "change") {
			branch, idx = "1", 0
		}
		check("tr("+root86+"/86h/0h/0h/"+branch+"/*)", idx, blk, str(blk, "scriptPubKey"))
	}
	for _, c := range v.BIP86.Forms.Cases {
		if sum, err := Checksum(c.Descriptor); err != nil || sum != c.Checksum {
			t.Errorf("%s: checksum %s (%v)", c.Descriptor, sum, err)
		}
		for is, spk := range c.Scripts {
			i, _ := strconv.Atoi(is)
			check(c.Descriptor, uint32(i), block{}, spk)
		}
	}
}
