package script

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/internal/testvec"
)

func mustHex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		tb.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

const (
	keyC  = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
	keyC2 = "03dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659"
	keyU  = "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
	keyH  = "0679be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
	h20   = "a31c06bd463e3923bc1aadbde48b16976c080717"
	h32   = "1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262"
)

// TestSolveAddressVectors classifies every scriptPubKey of addresses.json
// and checks the class name the vectors derived for it.
func TestSolveAddressVectors(t *testing.T) {
	t.Parallel()
	var v struct {
		Valid []struct {
			ID           string `json:"id"`
			ScriptPubKey string `json:"scriptPubKey"`
			Type         string `json:"type"`
		} `json:"valid"`
	}
	testvec.Load(t, "addresses.json", &v)
	if len(v.Valid) == 0 {
		t.Fatal("no vectors")
	}
	for _, tc := range v.Valid {
		spk := mustHex(t, tc.ScriptPubKey)
		class, sol := Solve(spk)
		if string(class) != tc.Type {
			t.Errorf("%s: class %s, want %s", tc.ID, class, tc.Type)
			continue
		}
		checkSolutions(t, tc.ID, spk, class, sol)
	}
}

// checkSolutions verifies the solution layout of a class by rebuilding the
// script from the solutions where the template is canonical.
func checkSolutions(t *testing.T, id string, spk []byte, class Class, sol [][]byte) {
	t.Helper()
	var rebuilt []byte
	switch class {
	case PubKey:
		rebuilt = PayToPubKey(sol[0])
	case PubKeyHash:
		rebuilt = PayToPubKeyHash(sol[0])
	case ScriptHash:
		rebuilt = PayToScriptHash(sol[0])
	case WitnessV0KeyHash:
		rebuilt = PayToWitnessPubKeyHash(sol[0])
	case WitnessV0ScriptHash:
		rebuilt = PayToWitnessScriptHash(sol[0])
	case WitnessV1Taproot:
		rebuilt = PayToTaproot(sol[0])
	case WitnessUnknown:
		if len(sol) != 2 || len(sol[0]) != 1 {
			t.Errorf("%s: witness_unknown solutions %x", id, sol)
			return
		}
		rebuilt = PayToWitness(int(sol[0][0]), sol[1])
	case Anchor:
		if len(sol) != 0 {
			t.Errorf("%s: anchor has solutions", id)
		}
		rebuilt = PayToAnchor()
	case Multisig:
		if len(sol) < 3 || int(sol[len(sol)-1][0]) != len(sol)-2 {
			t.Errorf("%s: multisig solutions %x", id, sol)
			return
		}
		var err error
		rebuilt, err = PayToMultisig(int(sol[0][0]), sol[1:len(sol)-1])
		if err != nil {
			t.Errorf("%s: rebuild multisig: %v", id, err)
			return
		}
	default:
		if len(sol) != 0 {
			t.Errorf("%s: %s has solutions %x", id, class, sol)
		}
		return
	}
	if !bytes.Equal(rebuilt, spk) {
		t.Errorf("%s: rebuilt %x from solutions, want %x", id, rebuilt, spk)
	}
}

func multisigHex(parts ...string) string { return strings.Join(parts, "") }

func TestSolve(t *testing.T) {
	t.Parallel()
	push := func(h string) string {
		return hex.EncodeToString(AppendPush(nil, mustHex(t, h)))
	}
	keys20 := strings.Repeat(push(keyC), 20)
	keys21 := strings.Repeat(push(keyC), 21)
	tests := []struct {
		name  string
		hex   string
		class Class
		sol   []string
	}{
		{"empty", "", Nonstandard, nil},
		{"p2pk compressed", push(keyC) + "ac", PubKey, []string{keyC}},
		{"p2pk uncompressed", push(keyU) + "ac", PubKey, []string{keyU}},
		{"p2pk hybrid", push(keyH) + "ac", PubKey, []string{keyH}},
		{"p2pk 65 bytes bad prefix", "41" + "05" + keyU[2:] + "ac", Nonstandard, nil},
		{"p2pk 33 bytes prefix 04", "21" + "04" + keyC[2:] + "ac", Nonstandard, nil},
		{"p2pk no checksig", push(keyC) + "ad", Nonstandard, nil},
		{"p2pkh", "76a914" + h20 + "88ac", PubKeyHash, []string{h20}},
		{"p2pkh trailing", "76a914" + h20 + "88ac00", Nonstandard, nil},
		{"p2sh", "a914" + h20 + "87", ScriptHash, []string{h20}},
		{"p2sh pushdata1 form", "a94c14" + h20 + "87", Nonstandard, nil},
		{"p2wpkh", "0014" + h20, WitnessV0KeyHash, []string{h20}},
		{"p2wsh", "0020" + h32, WitnessV0ScriptHash, []string{h32}},
		{"v0 21 bytes", "0015" + h20 + "00", Nonstandard, nil},
		{"p2tr", "5120" + h32, WitnessV1Taproot, []string{h32}},
		{"v1 20 bytes", "5114" + h20, WitnessUnknown, []string{"01", h20}},
		{"v16 2 bytes", "6002751e", WitnessUnknown, []string{"10", "751e"}},
		{"v1 40 bytes", "5128" + h20 + h20, WitnessUnknown, []string{"01", h20 + h20}},
		{"v1 41 bytes", "5129" + h20 + h20 + "00", Nonstandard, nil},
		{"v1 1 byte", "510100", Nonstandard, nil},
		{"anchor", "51024e73", Anchor, nil},
		{"v2 anchor program", "52024e73", WitnessUnknown, []string{"02", "4e73"}},
		{"op_return alone", "6a", NullData, nil},
		{"op_return data", "6a0401020304", NullData, nil},
		{"op_return small ints", "6a0051604f50", NullData, nil},
		{"op_return pushdata2", "6a4d0300aabbcc", NullData, nil},
		{"op_return non push", "6a76", Nonstandard, nil},
		{"op_return truncated", "6a05aabb", Nonstandard, nil},
		{"op_return big", "6a4d0002" + strings.Repeat("00", 512), NullData, nil},
		{"multisig 1of1", "51" + push(keyC) + "51ae", Multisig, []string{"01", keyC, "01"}},
		{"multisig 1of2 mixed", "51" + push(keyC) + push(keyU) + "52ae", Multisig, []string{"01", keyC, keyU, "02"}},
		{"multisig 2of2", "52" + push(keyC) + push(keyC2) + "52ae", Multisig, []string{"02", keyC, keyC2, "02"}},
		{"multisig 20of20", "0114" + keys20 + "0114ae", Multisig, append(append([]string{"14"}, strings.Split(strings.Repeat(keyC+" ", 20), " ")[:20]...), "14")},
		{"multisig 21 keys", "51" + keys21 + "0115ae", Nonstandard, nil},
		{"multisig m>n", "52" + push(keyC) + "51ae", Nonstandard, nil},
		{"multisig n mismatch", "51" + push(keyC) + "52ae", Nonstandard, nil},
		{"multisig m=0", "00" + push(keyC) + "51ae", Nonstandard, nil},
		{"multisig non-minimal m", "0101" + push(keyC) + "51ae", Nonstandard, nil},
		{"multisig non-minimal n", "51" + push(keyC) + "0101ae", Nonstandard, nil},
		{"multisig padded number", "021100" + push(keyC) + "51ae", Nonstandard, nil},
		{"multisig invalid key", "51" + "21" + "05" + keyC[2:] + "51ae", Nonstandard, nil},
		{"multisig extra op", "51" + push(keyC) + "5175ae", Nonstandard, nil},
		{"multisig no keys", "5151ae", Nonstandard, nil},
		{"multisig truncated key", "51" + "21" + keyC[:20] + "ae", Nonstandard, nil},
		{"checkmultisig only", "ae", Nonstandard, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spk := mustHex(t, tc.hex)
			class, sol := Solve(spk)
			if class != tc.class {
				t.Fatalf("class %s, want %s", class, tc.class)
			}
			if len(sol) != len(tc.sol) {
				t.Fatalf("%d solutions, want %d (%x)", len(sol), len(tc.sol), sol)
			}
			for i := range sol {
				if hex.EncodeToString(sol[i]) != tc.sol[i] {
					t.Errorf("solution %d = %x, want %s", i, sol[i], tc.sol[i])
				}
			}
			checkSolutions(t, tc.name, spk, class, sol)
		})
	}
}

func TestMatchMultiA(t *testing.T) {
	t.Parallel()
	x := strings.Repeat("11", 32)
	y := strings.Repeat("22", 32)
	tests := []struct {
		name string
		hex  string
		k    int
		n    int
	}{
		{"1 of 1", "20" + x + "ac519c", 1, 1},
		{"2 of 2", "20" + x + "ac20" + y + "ba529c", 2, 2},
		{"1 of 2", "20" + x + "ac20" + y + "ba519c", 1, 2},
		{"3 of 2", "20" + x + "ac20" + y + "ba539c", 0, 0},
		{"0 of 1", "20" + x + "ac009c", 0, 0},
		{"first is checksigadd", "20" + x + "ba519c", 0, 0},
		{"second is checksig", "20" + x + "ac20" + y + "ac529c", 0, 0},
		{"non-minimal k", "20" + x + "ac01019c", 0, 0},
		{"trailing", "20" + x + "ac519c9c", 0, 0},
		{"no numequal", "20" + x + "ac5169", 0, 0},
	}
	for _, tc := range tests {
		k, keys, ok := MatchMultiA(mustHex(t, tc.hex))
		if ok != (tc.k > 0) || k != tc.k || len(keys) != tc.n {
			t.Errorf("%s: got (%d, %d keys, %v), want (%d, %d)", tc.name, k, len(keys), ok, tc.k, tc.n)
		}
	}
}

func TestIsPushOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		hex  string
		want bool
	}{
		{"", true},
		{"00", true},
		{"4f5060", true},
		{"61", false},
		{"0201", false},
		{"4c", false},
		{"4c0100", true},
		{"4d0100aa", true},
		{"4d01", false},
		{"4e01000000aa", true},
		{"4effffffff", false},
		{"0100ac", false},
	}
	for _, tc := range tests {
		if got := IsPushOnly(mustHex(t, tc.hex)); got != tc.want {
			t.Errorf("IsPushOnly(%s) = %v, want %v", tc.hex, got, tc.want)
		}
	}
}

func TestScriptNumAndAddInt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n      int64
		num    string
		script string
	}{
		{0, "", "00"},
		{-1, "81", "4f"},
		{1, "01", "51"},
		{16, "10", "60"},
		{17, "11", "0111"},
		{20, "14", "0114"},
		{127, "7f", "017f"},
		{128, "8000", "028000"},
		{-2, "82", "0182"},
		{255, "ff00", "02ff00"},
		{-255, "ff80", "02ff80"},
		{256, "0001", "020001"},
		{1 << 31, "0000008000", "050000008000"},
	}
	for _, tc := range tests {
		if got := hex.EncodeToString(ScriptNum(tc.n)); got != tc.num {
			t.Errorf("ScriptNum(%d) = %s, want %s", tc.n, got, tc.num)
		}
		var b Builder
		if got := hex.EncodeToString(b.AddInt(tc.n).Script()); got != tc.script {
			t.Errorf("AddInt(%d) = %s, want %s", tc.n, got, tc.script)
		}
		if len(tc.num) <= 8 {
			v, ok := decodeMinimalNum(mustHex(t, tc.num))
			if !ok || v != tc.n {
				t.Errorf("decodeMinimalNum(%s) = %d, %v", tc.num, v, ok)
			}
		}
	}
	for _, bad := range []string{"00", "0100", "80", "ff0000", "0000000001"} {
		if _, ok := decodeMinimalNum(mustHex(t, bad)); ok {
			t.Errorf("decodeMinimalNum(%s) accepted a non-minimal or oversized number", bad)
		}
	}
}

func TestPushEncoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		size   int
		prefix string
	}{
		{0, "00"},
		{1, "01"},
		{75, "4b"},
		{76, "4c4c"},
		{255, "4cff"},
		{256, "4d0001"},
		{65535, "4dffff"},
		{65536, "4e00000100"},
	}
	for _, tc := range tests {
		data := bytes.Repeat([]byte{0xaa}, tc.size)
		got := AppendPush(nil, data)
		want := append(mustHex(t, tc.prefix), data...)
		if !bytes.Equal(got, want) {
			t.Errorf("push of %d bytes: prefix %x, want %s", tc.size, got[:len(got)-tc.size], tc.prefix)
		}
		op, pushed, next, ok := NextOp(got, 0)
		if !ok || next != len(got) || !bytes.Equal(pushed, data) || !CheckMinimalPush(pushed, op) && tc.size != 1 {
			t.Errorf("NextOp over a %d-byte push: ok=%v next=%d", tc.size, ok, next)
		}
	}
	minimal := []struct{ data, script string }{
		{"", "00"},
		{"01", "51"},
		{"10", "60"},
		{"11", "0111"},
		{"81", "4f"},
		{"00", "0100"},
		{"0102", "020102"},
	}
	for _, tc := range minimal {
		var b Builder
		got := b.AddMinimalData(mustHex(t, tc.data)).Script()
		if hex.EncodeToString(got) != tc.script {
			t.Errorf("AddMinimalData(%s) = %x, want %s", tc.data, got, tc.script)
		}
		op, data, _, ok := NextOp(got, 0)
		if ok && op <= OpPushData4 && !CheckMinimalPush(data, op) {
			t.Errorf("AddMinimalData(%s) produced a non-minimal push", tc.data)
		}
	}
}

func TestPayToMultisigErrors(t *testing.T) {
	t.Parallel()
	k := mustHex(t, keyC)
	many := make([][]byte, 21)
	for i := range many {
		many[i] = k
	}
	tests := []struct {
		name string
		m    int
		keys [][]byte
		kind ErrorKind
	}{
		{"too many", 1, many, ErrTooManyKeys},
		{"zero threshold", 0, [][]byte{k}, ErrInvalidThreshold},
		{"threshold above n", 2, [][]byte{k}, ErrInvalidThreshold},
		{"no keys", 1, nil, ErrInvalidThreshold},
		{"bad key", 1, [][]byte{k[:32]}, ErrInvalidPubKey},
	}
	for _, tc := range tests {
		_, err := PayToMultisig(tc.m, tc.keys)
		if !errors.Is(err, tc.kind) {
			t.Errorf("%s: error %v, want kind %s", tc.name, err, tc.kind)
		}
		var e *Error
		if !errors.As(err, &e) || e.Description == "" {
			t.Errorf("%s: not an *Error with a description: %v", tc.name, err)
		}
	}
}

func TestSmallInt(t *testing.T) {
	t.Parallel()
	for n := 0; n <= 16; n++ {
		v, ok := SmallIntValue(SmallIntOp(n))
		if !ok || v != n {
			t.Errorf("small int %d round trip gave %d, %v", n, v, ok)
		}
	}
	for _, op := range []byte{Op1Negate, OpReserved, 0x01, 0x61} {
		if _, ok := SmallIntValue(op); ok {
			t.Errorf("SmallIntValue(%#x) accepted", op)
		}
	}
}
