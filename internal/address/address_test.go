package address

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcutil/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/address/bech32"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/testvec"
)

var networks = map[string]*chaincfg.Params{
	"main":     &chaincfg.MainNetParams,
	"test":     &chaincfg.TestNet3Params,
	"testnet4": &chaincfg.TestNet4Params,
	"signet":   &chaincfg.SigNetParams,
	"regtest":  &chaincfg.RegressionNetParams,
}

var networkNames = []string{"main", "test", "testnet4", "signet", "regtest"}

type validCase struct {
	ID                    string          `json:"id"`
	Address               string          `json:"address"`
	Network               string          `json:"network"`
	ValidOn               []string        `json:"valid_on"`
	ScriptPubKey          string          `json:"scriptPubKey"`
	Type                  string          `json:"type"`
	DescribeAddress       json.RawMessage `json:"describe_address"`
	CaseFlippedAlsoValid  *bool           `json:"case_flipped_also_valid"`
	ValidateAddressResult *struct {
		IsValid      bool   `json:"isvalid"`
		ScriptPubKey string `json:"scriptPubKey"`
	} `json:"validateaddress"`
}

type invalidCase struct {
	ID              string  `json:"id"`
	String          string  `json:"string"`
	Reason          *string `json:"reason"`
	Network         string  `json:"network"`
	ValidateAddress *struct {
		IsValid        bool   `json:"isvalid"`
		Error          string `json:"error"`
		ErrorLocations []int  `json:"error_locations"`
	} `json:"validateaddress"`
}

type vectors struct {
	Valid   []validCase   `json:"valid"`
	Invalid []invalidCase `json:"invalid"`
}

func loadVectors(tb testing.TB) vectors {
	var v vectors
	testvec.Load(tb, "addresses.json", &v)
	if len(v.Valid) == 0 || len(v.Invalid) == 0 {
		tb.Fatal("addresses.json has no cases")
	}
	return v
}

func flipCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = c - 'a' + 'A'
		case c >= 'A' && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

// TestValidAddresses decodes every valid vector on every network: it must
// give the vector's scriptPubKey exactly on the networks in valid_on and
// fail elsewhere, re-encode to its canonical form, describe as the vector
// says, follow the case-flip rule, and never decode as a WIF key.
func TestValidAddresses(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	for _, tc := range v.Valid {
		t.Run(tc.ID, func(t *testing.T) {
			want, _ := hex.DecodeString(tc.ScriptPubKey)
			for _, name := range networkNames {
				net := networks[name]
				spk, err := Decode(tc.Address, net)
				if !slices.Contains(tc.ValidOn, name) {
					if err == nil {
						t.Errorf("%s: decoded on %s", tc.Address, name)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s on %s: %v", tc.Address, name, err)
					continue
				}
				if hex.EncodeToString(spk) != tc.ScriptPubKey {
					t.Errorf("%s on %s: script %x, want %s", tc.Address, name, spk, tc.ScriptPubKey)
				}
				addr, ok := Encode(spk, net)
				canonical := tc.Address
				if strings.HasPrefix(strings.ToLower(tc.Address), net.Bech32HRPSegwit+"1") {
					canonical = strings.ToLower(tc.Address)
				}
				if !ok || addr != canonical {
					t.Errorf("%s on %s: encoded as %q, %v", tc.Address, name, addr, ok)
				}
			}

			if class, _ := script.Solve(want); string(class) != tc.Type {
				t.Errorf("type %s, want %s", class, tc.Type)
			}
			desc, ok := Describe(want)
			if !ok {
				t.Fatalf("no description")
			}
			got, _ := json.Marshal(desc)
			var gotMap, wantMap map[string]any
			_ = json.Unmarshal(got, &gotMap)
			if err := json.Unmarshal(tc.DescribeAddress, &wantMap); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotMap, wantMap) {
				t.Errorf("describe %s, want %s", got, tc.DescribeAddress)
			}

			if tc.CaseFlippedAlsoValid != nil {
				flipped := flipCase(tc.Address)
				spk, err := Decode(flipped, networks[tc.Network])
				if *tc.CaseFlippedAlsoValid {
					if err != nil || hex.EncodeToString(spk) != tc.ScriptPubKey {
						t.Errorf("flipped %s: %x, %v", flipped, spk, err)
					}
				} else if err == nil {
					t.Errorf("flipped %s decoded", flipped)
				}
			}

			if tc.ValidateAddressResult != nil && tc.ValidateAddressResult.ScriptPubKey != tc.ScriptPubKey {
				t.Errorf("validateaddress scriptPubKey %s", tc.ValidateAddressResult.ScriptPubKey)
			}

			if w, err := btcutil.DecodeWIF(tc.Address); err == nil {
				for _, name := range networkNames {
					if w.IsForNet(networks[name]) {
						t.Errorf("decodes as a WIF key on %s", name)
					}
				}
			}
		})
	}
}

// TestInvalidAddresses checks every invalid vector fails on every network,
// and that Core's validateaddress cases give Core's message and locations.
func TestInvalidAddresses(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	for _, tc := range v.Invalid {
		for _, name := range networkNames {
			spk, err := Decode(tc.String, networks[name])
			if err == nil {
				t.Errorf("%s: %q decoded on %s as %x", tc.ID, tc.String, name, spk)
				continue
			}
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, e.Kind) || !errors.Is(err, ErrDecode) || e.Error() == "" {
				t.Errorf("%s: error %v is not a described *Error", tc.ID, err)
			}
			if strings.HasPrefix(tc.ID, "core-keyio-invalid") {
				if w, err := btcutil.DecodeWIF(tc.String); err == nil && w.IsForNet(networks[name]) {
					t.Errorf("%s: decodes as a WIF key on %s", tc.ID, name)
				}
			}
		}
		if va := tc.ValidateAddress; va != nil {
			net := networks[tc.Network]
			_, err := Decode(tc.String, net)
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%s: no *Error", tc.ID)
				continue
			}
			if e.Error() != va.Error {
				t.Errorf("%s: %q on %s: message %q, want %q", tc.ID, tc.String, tc.Network, e.Error(), va.Error)
			}
			if !slices.Equal(e.Locations, va.ErrorLocations) {
				t.Errorf("%s: locations %v, want %v", tc.ID, e.Locations, va.ErrorLocations)
			}
		}
	}
}

// segwit builds a Bech32(m) string from raw parts, for cases the vectors do
// not hold.
func segwit(enc bech32.Encoding, hrp string, version byte, program []byte) string {
	data, _ := bech32.ConvertBits(program, 8, 5, true)
	return bech32.Encode(enc, hrp, append([]byte{version}, data...))
}

// TestDecodeMessages pins Core's message for each reason a string fails,
// including the ones recorded from Core in the RPC spec.
func TestDecodeMessages(t *testing.T) {
	t.Parallel()
	reg := &chaincfg.RegressionNetParams
	main := &chaincfg.MainNetParams
	h20 := make([]byte, 20)
	h32 := make([]byte, 32)
	// A valid regtest P2WPKH and P2PKH to derive cases from.
	wpkh := segwit(bech32.Bech32, "bcrt", 0, h20)
	pkh, _ := Encode(script.PayToPubKeyHash(h20), reg)
	mainPKH, _ := Encode(script.PayToPubKeyHash(h20), main)
	short := encodeBase58Check(append([]byte{reg.PubKeyHashAddrID}, h20[:19]...))
	shortSH := encodeBase58Check(append([]byte{reg.ScriptHashAddrID}, h20[:5]...))
	long := encodeBase58Check(append([]byte{reg.PubKeyHashAddrID}, make([]byte, 21)...))
	unknown := encodeBase58Check(append([]byte{0x42}, h20...))
	// Data with 5 bits of padding: a 0-value group after a whole number of
	// bytes.
	padData, _ := bech32.ConvertBits(h20, 8, 5, true)
	badPad := bech32.Encode(bech32.Bech32, "bcrt", append(append([]byte{0}, padData...), 0))

	tests := []struct {
		name string
		s    string
		net  *chaincfg.Params
		kind ErrorKind
		msg  string
	}{
		{"bad base58 checksum", pkh[:len(pkh)-1] + "z", reg, ErrBase58Checksum, "Invalid checksum or length of Base58 address (P2PKH or P2SH)"},
		{"empty string", "", reg, ErrBase58Checksum, "Invalid checksum or length of Base58 address (P2PKH or P2SH)"},
		{"ones", "1111111111", reg, ErrBase58Checksum, "Invalid checksum or length of Base58 address (P2PKH or P2SH)"},
		{"hex string", "deadbeef", reg, ErrBase58Checksum, "Invalid checksum or length of Base58 address (P2PKH or P2SH)"},
		{"payload too long", long, reg, ErrBase58Checksum, "Invalid checksum or length of Base58 address (P2PKH or P2SH)"},
		{"payload short", short, reg, ErrBase58Length, "Invalid length for Base58 address (P2PKH or P2SH)"},
		{"p2sh payload short", shortSH, reg, ErrBase58Length, "Invalid length for Base58 address (P2PKH or P2SH)"},
		{"mainnet on regtest", mainPKH, reg, ErrBase58Prefix, "Invalid or unsupported Base58-encoded address."},
		{"unknown version", unknown, reg, ErrBase58Prefix, "Invalid or unsupported Base58-encoded address."},
		{"not base58", "0OIl", reg, ErrUnsupportedEncoding, "Invalid or unsupported Segwit (Bech32) or Base58 encoding."},
		{"leading space bech32", " " + wpkh, reg, ErrUnsupportedEncoding, "Invalid or unsupported Segwit (Bech32) or Base58 encoding."},
		{"other network bech32", segwit(bech32.Bech32, "tb", 0, h20), reg, ErrUnsupportedEncoding, "Invalid or unsupported Segwit (Bech32) or Base58 encoding."},
		{"very long", strings.Repeat("z", 5000), reg, ErrUnsupportedEncoding, "Invalid or unsupported Segwit (Bech32) or Base58 encoding."},
		{"nul byte", pkh + "\x00", reg, ErrUnsupportedEncoding, "Invalid or unsupported Segwit (Bech32) or Base58 encoding."},
		{"regtest on main", wpkh, main, ErrWrongPrefix, "Invalid or unsupported prefix for Segwit (Bech32) address (expected bc, got bcrt)."},
		{"longer hrp", segwit(bech32.Bech32, "bcrtx", 0, h20), reg, ErrWrongPrefix, "Invalid or unsupported prefix for Segwit (Bech32) address (expected bcrt, got bcrtx)."},
		{"empty data", bech32.Encode(bech32.Bech32, "bcrt", nil), reg, ErrEmptyData, "Empty Bech32 data section"},
		{"v0 bech32m", segwit(bech32.Bech32m, "bcrt", 0, h20), reg, ErrV0NeedsBech32, "Version 0 witness address must use Bech32 checksum"},
		{"v1 bech32", segwit(bech32.Bech32, "bcrt", 1, h32), reg, ErrV1NeedsBech32m, "Version 1+ witness address must use Bech32m checksum"},
		{"padding", badPad, reg, ErrPadding, "Invalid padding in Bech32 data section"},
		{"v0 21 bytes", segwit(bech32.Bech32, "bcrt", 0, make([]byte, 21)), reg, ErrV0ProgramSize, "Invalid Bech32 v0 address program size (21 bytes), per BIP141"},
		{"v0 1 byte", segwit(bech32.Bech32, "bcrt", 0, []byte{1}), reg, ErrV0ProgramSize, "Invalid Bech32 v0 address program size (1 byte), per BIP141"},
		{"version 17", segwit(bech32.Bech32m, "bcrt", 17, h32), reg, ErrWitnessVersion, "Invalid Bech32 address witness version"},
		{"v1 1 byte", segwit(bech32.Bech32m, "bcrt", 1, []byte{1}), reg, ErrProgramSize, "Invalid Bech32 address program size (1 byte)"},
		{"v2 41 bytes", segwit(bech32.Bech32m, "bcrt", 2, make([]byte, 41)), reg, ErrProgramSize, "Invalid Bech32 address program size (41 bytes)"},
		{"separator only", "bcrt1", reg, ErrBech32, "Invalid separator position"},
		{"short data", "bcrt1qqqqq", reg, ErrBech32, "Invalid separator position"},
		{"punctuation", "bcrt1qqqqqqq!", reg, ErrBech32, "Invalid Base 32 character"},
		{"letter b", "bcrt1qqqqqqqb", reg, ErrBech32, "Invalid Base 32 character"},
		{"too long", "bcrt1" + strings.Repeat("q", 90), reg, ErrBech32, "Bech32 string too long"},
		{"mixed case", "bcrt1Q" + wpkh[6:], reg, ErrBech32, "Invalid character or mixed case"},
		{"checksum", wpkh[:len(wpkh)-1] + string("qp"[bool2int(wpkh[len(wpkh)-1] == 'q')]), reg, ErrBech32, "Invalid Bech32 checksum"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spk, err := Decode(tc.s, tc.net)
			if err == nil {
				t.Fatalf("%q decoded as %x", tc.s, spk)
			}
			if !errors.Is(err, tc.kind) || !errors.Is(err, ErrDecode) {
				t.Errorf("%q: kind of %v, want %s", tc.s, err, tc.kind)
			}
			if err.Error() != tc.msg {
				t.Errorf("%q: message %q, want %q", tc.s, err.Error(), tc.msg)
			}
		})
	}
}

func bool2int(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestAnchorAndWitnessUnknown(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"main":    "bc1pfeessrawgf",
		"test":    "tb1pfees9rn5nz",
		"regtest": "bcrt1pfeesnyr2tx",
	}
	for name, addr := range want {
		net := networks[name]
		got, ok := Encode(script.PayToAnchor(), net)
		if !ok || got != addr {
			t.Errorf("anchor on %s: %q, %v; want %s", name, got, ok, addr)
		}
		spk, err := Decode(addr, net)
		if err != nil || hex.EncodeToString(spk) != "51024e73" {
			t.Errorf("decode %s: %x, %v", addr, spk, err)
		}
		if c, _ := script.Solve(spk); c != script.Anchor {
			t.Errorf("anchor classified %s", c)
		}
	}
	// Witness versions 2..16 and every program length round-trip.
	net := &chaincfg.RegressionNetParams
	for v := 1; v <= 16; v++ {
		for n := 2; n <= 40; n++ {
			prog := make([]byte, n)
			for i := range prog {
				prog[i] = byte(i*7 + v)
			}
			spk := script.PayToWitness(v, prog)
			addr, ok := Encode(spk, net)
			if !ok {
				t.Fatalf("v%d/%d: no address", v, n)
			}
			back, err := Decode(addr, net)
			if err != nil || string(back) != string(spk) {
				t.Fatalf("v%d/%d: %s decoded %x, %v", v, n, addr, back, err)
			}
		}
	}
}

func TestNoAddress(t *testing.T) {
	t.Parallel()
	key, _ := hex.DecodeString("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
	multi, _ := script.PayToMultisig(1, [][]byte{key})
	for _, spk := range [][]byte{
		script.PayToPubKey(key), multi, {script.OpReturn}, {}, {0x00, 0x15, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21},
	} {
		if addr, ok := Encode(spk, &chaincfg.MainNetParams); ok || addr != "" {
			t.Errorf("%x has address %q", spk, addr)
		}
		if _, ok := Describe(spk); ok {
			t.Errorf("%x has a description", spk)
		}
	}
}

func TestBase58(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s   string
		max int
		out string
		ok  bool
	}{
		{"", 10, "", true},
		{" \t\n", 10, "", true},
		{"1", 10, "00", true},
		{"  11z ", 10, "000039", true},
		{"1 1", 10, "", false},
		{"z", 0, "", false},
		{"11", 1, "", false},
		{"5R", 1, "", false}, // 0x0100: two bytes
		{"0", 10, "", false},
		{"z\x00", 10, "", false},
	} {
		out, ok := decodeBase58(tc.s, tc.max)
		if ok != tc.ok || ok && hex.EncodeToString(out) != tc.out {
			t.Errorf("decodeBase58(%q, %d) = %x, %v; want %s, %v", tc.s, tc.max, out, ok, tc.out, tc.ok)
		}
	}
}
