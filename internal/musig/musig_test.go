package musig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/btcutil/v2"
	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
)

func unhex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// keyAggPubkeys, keyAggValid and keyAggErrors are the public keys and the
// KeyAgg cases of BIP 327's key_agg_vectors.json (bitcoin/bips:
// bip-0327/vectors/key_agg_vectors.json). The expected values are the
// x-only aggregate keys. The vector file's error cases that exercise
// ApplyTweak are not KeyAgg's and are left out: this package does not tweak.
var keyAggPubkeys = []string{
	"02F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9",
	"03DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659",
	"023590A94E768F8E1815C2F24B4D80A8E3149316C3518CE7B7AD338368D038CA66",
	"020000000000000000000000000000000000000000000000000000000000000005",
	"02FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC30",
	"04F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9",
	"03935F972DA013F80AE011890FA89B67A27B7BE6CCB24D3274D18B2D4067F261A9",
}

var keyAggValid = []struct {
	indices  []int
	expected string
}{
	{[]int{0, 1, 2}, "90539EEDE565F5D054F32CC0C220126889ED1E5D193BAF15AEF344FE59D4610C"},
	{[]int{2, 1, 0}, "6204DE8B083426DC6EAF9502D27024D53FC826BF7D2012148A0575435DF54B2B"},
	{[]int{0, 0, 0}, "B436E3BAD62B8CD409969A224731C193D051162D8C5AE8B109306127DA3AA935"},
	{[]int{0, 0, 1, 1}, "69BC22BFA5D106306E48A20679DE1D7389386124D07571D0D872686028C26A3E"},
}

var keyAggErrors = []struct {
	indices []int
	signer  int
	comment string
}{
	{[]int{0, 3}, 1, "Invalid public key"},
	{[]int{0, 4}, 1, "Public key exceeds field size"},
	{[]int{5, 0}, 0, "First byte of public key is not 2 or 3"},
}

func pick(tb testing.TB, indices []int) [][]byte {
	out := make([][]byte, len(indices))
	for i, idx := range indices {
		out[i] = unhex(tb, keyAggPubkeys[idx])
	}
	return out
}

func TestBIP327KeyAggVectors(t *testing.T) {
	t.Parallel()
	for _, tc := range keyAggValid {
		agg, err := KeyAgg(pick(t, tc.indices))
		if err != nil {
			t.Errorf("%v: %v", tc.indices, err)
			continue
		}
		got := strings.ToUpper(hex.EncodeToString(schnorr.SerializePubKey(agg)))
		if got != tc.expected {
			t.Errorf("%v: aggregate %s, want %s", tc.indices, got, tc.expected)
		}
	}
	for _, tc := range keyAggErrors {
		_, err := KeyAgg(pick(t, tc.indices))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrInvalidPubKey) || e.Index != tc.signer {
			t.Errorf("%s %v: error %v, want ErrInvalidPubKey at %d", tc.comment, tc.indices, err, tc.signer)
		}
	}
	if _, err := KeyAgg(nil); !errors.Is(err, ErrNoKeys) {
		t.Errorf("no keys: %v", err)
	}
}

// TestBIP328Vectors checks the aggregate keys and synthetic xpubs of BIP 328's
// test vectors (bitcoin/bips:bip-0328.mediawiki), keys in the listed order.
func TestBIP328Vectors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		keys []string
		agg  string
		xpub string
	}{
		{
			[]string{"03935F972DA013F80AE011890FA89B67A27B7BE6CCB24D3274D18B2D4067F261A9",
				"02F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9"},
			"0354240c76b8f2999143301a99c7f721ee57eee0bce401df3afeaa9ae218c70f23",
			"xpub661MyMwAqRbcFt6tk3uaczE1y6EvM1TqXvawXcYmFEWijEM4PDBnuCXwwXEKGEouzXE6QLLRxjatMcLLzJ5LV5Nib1BN7vJg6yp45yHHRbm",
		},
		{
			[]string{"02F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9",
				"03DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659",
				"023590A94E768F8E1815C2F24B4D80A8E3149316C3518CE7B7AD338368D038CA66"},
			"0290539eede565f5d054f32cc0c220126889ed1e5d193baf15aef344fe59d4610c",
			"xpub661MyMwAqRbcFt6tk3uaczE1y6EvM1TqXvawXcYmFEWijEM4PDBnuCXwwVk5TFJk8Tw5WAdV3DhrGfbFA216sE9BsQQiSFTdudkETnKdg8k",
		},
		{
			[]string{"02DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659",
				"023590A94E768F8E1815C2F24B4D80A8E3149316C3518CE7B7AD338368D038CA66",
				"02F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9",
				"03935F972DA013F80AE011890FA89B67A27B7BE6CCB24D3274D18B2D4067F261A9"},
			"022479f134cdb266141dab1a023cbba30a870f8995b95a91fc8464e56a7d41f8ea",
			"xpub661MyMwAqRbcFt6tk3uaczE1y6EvM1TqXvawXcYmFEWijEM4PDBnuCXwwUvaZYpysLX4wN59tjwU5pBuDjNrPEJbfxjLwn7ruzbXTcUTHkZ",
		},
	}
	for i, tc := range tests {
		keys := make([][]byte, len(tc.keys))
		for j, k := range tc.keys {
			keys[j] = unhex(t, k)
		}
		agg, err := KeyAgg(keys)
		if err != nil {
			t.Fatalf("vector %d: %v", i, err)
		}
		if got := hex.EncodeToString(agg.SerializeCompressed()); got != tc.agg {
			t.Errorf("vector %d: aggregate %s, want %s", i, got, tc.agg)
		}
		if got := SyntheticXPub(agg, &chaincfg.MainNetParams).String(); got != tc.xpub {
			t.Errorf("vector %d: xpub %s, want %s", i, got, tc.xpub)
		}
	}
	if sum := sha256.Sum256([]byte("MuSig2MuSig2MuSig2")); sum != SyntheticChainCode {
		t.Errorf("chain code %x is not SHA256(MuSig2MuSig2MuSig2) %x", SyntheticChainCode, sum)
	}
	tpub := SyntheticXPub(mustAgg(t), &chaincfg.RegressionNetParams).String()
	if !strings.HasPrefix(tpub, "tpub") {
		t.Errorf("regtest synthetic key %s", tpub)
	}
}

func mustAgg(t *testing.T) *btcec.PublicKey {
	agg, err := KeyAgg(pick(t, []int{0, 1}))
	if err != nil {
		t.Fatal(err)
	}
	return agg
}

// TestBIP390Vectors reproduces the scripts of BIP 390's valid musig()
// descriptors (bitcoin/bips:bip-0390.mediawiki) that need only key
// aggregation, sorting and BIP 328 derivation.
func TestBIP390Vectors(t *testing.T) {
	t.Parallel()
	wif, err := btcutil.DecodeWIF("KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU74sHUHy8S")
	if err != nil {
		t.Fatal(err)
	}
	hexKeys := func(extra ...string) [][]byte {
		out := [][]byte{}
		for _, k := range extra {
			out = append(out, unhex(t, k))
		}
		return out
	}
	k2 := "03dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659"
	k3 := "023590a94e768f8e1815c2f24b4d80a8e3149316c3518ce7b7ad338368d038ca66"

	// rawtr(musig(WIF, K2, K3)): the output key is the aggregate itself.
	keys := append([][]byte{wif.SerializePubKey()}, hexKeys(k2, k3)...)
	agg, err := KeyAgg(Sort(keys))
	if err != nil {
		t.Fatal(err)
	}
	if got := taprootScript(schnorr.SerializePubKey(agg)); got != "5120789d937bade6673538f3e28d8368dda4d0512f94da44cf477a505716d26a1575" {
		t.Errorf("rawtr(musig(...)) = %s", got)
	}

	// tr(musig(K1, K2, K3)): BIP 341 tweak with no script tree.
	keys = hexKeys("02f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9", k2, k3)
	agg, err = KeyAgg(Sort(keys))
	if err != nil {
		t.Fatal(err)
	}
	out := txscript.ComputeTaprootKeyNoScript(agg)
	if got := taprootScript(schnorr.SerializePubKey(out)); got != "512079e6c3e628c9bfbce91de6b7fb28e2aec7713d377cf260ab599dcbc40e542312" {
		t.Errorf("tr(musig(...)) = %s", got)
	}

	// rawtr(musig(xpubA, xpubB)/0/*) at indices 0, 1, 2.
	var parts [][]byte
	for _, s := range []string{
		"xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL",
		"xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y",
	} {
		xk, err := hdkeychain.NewKeyFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		pk, err := xk.ECPubKey()
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, pk.SerializeCompressed())
	}
	agg, err = KeyAgg(Sort(parts))
	if err != nil {
		t.Fatal(err)
	}
	branch, err := SyntheticXPub(agg, &chaincfg.MainNetParams).Derive(0)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{
		"51209508c08832f3bb9d5e8baf8cb5cfa3669902e2f2da19acea63ff47b93faa9bfc",
		"51205ca1102663025a83dd9b5dbc214762c5a6309af00d48167d2d6483808525a298",
		"51207dbed1b89c338df6a1ae137f133a19cae6e03d481196ee6f1a5c7d1aeb56b166",
	} {
		child, err := branch.Derive(uint32(i))
		if err != nil {
			t.Fatal(err)
		}
		pk, err := child.ECPubKey()
		if err != nil {
			t.Fatal(err)
		}
		if got := taprootScript(schnorr.SerializePubKey(pk)); got != want {
			t.Errorf("rawtr(musig(xpubs)/0/%d) = %s, want %s", i, got, want)
		}
	}
}

func taprootScript(xonly []byte) string {
	return "5120" + hex.EncodeToString(xonly)
}

func TestSort(t *testing.T) {
	t.Parallel()
	in := pick(t, []int{6, 0, 1, 2})
	orig := make([][]byte, len(in))
	copy(orig, in)
	out := Sort(in)
	for i := range in {
		if !bytes.Equal(in[i], orig[i]) {
			t.Fatal("Sort modified its input")
		}
	}
	for i := 1; i < len(out); i++ {
		if bytes.Compare(out[i-1], out[i]) > 0 {
			t.Fatalf("not sorted: %x", out)
		}
	}
	// Aggregation is order-sensitive, sorting makes it order-independent.
	a, _ := KeyAgg(Sort(pick(t, []int{0, 1, 2})))
	b, _ := KeyAgg(Sort(pick(t, []int{1, 0, 2})))
	c, _ := KeyAgg(pick(t, []int{1, 0, 2}))
	if !a.IsEqual(b) || a.IsEqual(c) {
		t.Error("sorting does not make aggregation order-independent")
	}
}
