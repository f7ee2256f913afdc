package script

import (
	"encoding/hex"
	"strings"
	"testing"
)

// derSig is a strictly encoded DER signature without its sighash byte.
const derSig = "3044022072c96347853b95efdf1f4a7de9204af94b418f2015fac59ca327e2e5b4b3a1b102204a1b4a4d4f6e5a7a5e5d5c5b5a595857565554535251504f4e4d4c4b4a494847"

func TestAsm(t *testing.T) {
	for _, c := range []struct {
		hex     string
		sighash bool
		want    string
	}{
		{"", false, ""},
		{"76a914cb3b9c7d7df2ec4406dca987ec45b9eff347dd5188ac", false,
			"OP_DUP OP_HASH160 cb3b9c7d7df2ec4406dca987ec45b9eff347dd51 OP_EQUALVERIFY OP_CHECKSIG"},
		{"004f516002ff800180", false, "0 -1 1 16 -255 0"},
		{"6002abcd", false, "16 -19883"},
		{"ba", false, "OP_CHECKSIGADD"},
		{"bb", false, "OP_UNKNOWN"},
		{"4c", false, "[error]"},
		{"5103abcd", false, "1 [error]"},
		// A signature with a defined sighash type is decoded only in
		// scriptSigs, and never in an unspendable script.
		{"47" + derSig + "01", true, derSig + "[ALL]"},
		{"47" + derSig + "83", true, derSig + "[SINGLE|ANYONECANPAY]"},
		{"47" + derSig + "01", false, derSig + "01"},
		{"47" + derSig + "04", true, derSig + "04"},
		{"6a47" + derSig + "01", true, "OP_RETURN " + derSig + "01"},
	} {
		b, _ := hex.DecodeString(c.hex)
		if got := Asm(b, c.sighash); got != c.want {
			t.Errorf("%s (%v): %q, want %q", c.hex, c.sighash, got, c.want)
		}
	}
}

func TestIsValidSignatureEncoding(t *testing.T) {
	good, _ := hex.DecodeString(derSig + "01")
	if !IsValidSignatureEncoding(good) {
		t.Fatal("valid signature rejected")
	}
	for name, mutate := range map[string]func([]byte){
		"wrong tag":      func(b []byte) { b[0] = 0x31 },
		"wrong length":   func(b []byte) { b[1]-- },
		"r not integer":  func(b []byte) { b[2] = 0x03 },
		"negative r":     func(b []byte) { b[4] = 0x80 },
		"padded r":       func(b []byte) { b[4], b[5] = 0x00, 0x01 },
		"s not integer":  func(b []byte) { b[4+int(b[3])] = 0x03 },
		"negative s":     func(b []byte) { b[6+int(b[3])] = 0x80 },
		"padded s":       func(b []byte) { b[6+int(b[3])] = 0x00 },
		"r runs over s":  func(b []byte) { b[3] += 2 },
		"truncated tail": nil,
	} {
		b := append([]byte(nil), good...)
		if mutate == nil {
			b = b[:len(b)-2]
		} else {
			mutate(b)
		}
		if IsValidSignatureEncoding(b) {
			t.Errorf("%s: accepted %x", name, b)
		}
	}
	if IsValidSignatureEncoding(nil) || IsValidSignatureEncoding(make([]byte, 74)) {
		t.Error("bad sizes accepted")
	}
}

func TestHasValidOps(t *testing.T) {
	big := append([]byte{OpPushData2, 0x09, 0x02}, make([]byte, 521)...)
	for _, c := range []struct {
		scr  []byte
		want bool
	}{
		{nil, true},
		{[]byte{0x51, 0xb9}, true},
		{[]byte{0xba}, false},
		{[]byte{0x4c}, false},
		{big, false},
		{big[3:], true},
	} {
		if got := HasValidOps(c.scr); got != c.want {
			t.Errorf("%x: %v, want %v", c.scr, got, c.want)
		}
	}
	if !IsUnspendable([]byte{OpReturn}) || IsUnspendable([]byte{0x51}) || !IsUnspendable(make([]byte, MaxScriptSize+1)) {
		t.Error("IsUnspendable")
	}
}

// FuzzAsm checks that Asm and HasValidOps never panic on any script, that
// a script whose operations are valid renders without "[error]", and that
// without signature decoding the rendering has one word per operation.
func FuzzAsm(f *testing.F) {
	for _, s := range []string{"", "76a914cb3b9c7d7df2ec4406dca987ec45b9eff347dd5188ac", "4c", "6a0568656c6c6f",
		"47" + derSig + "01", "004f516002ff800180", "4d0100ff", "4e01000000ff"} {
		b, _ := hex.DecodeString(s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, scr []byte) {
		plain := Asm(scr, false)
		_ = Asm(scr, true)
		if HasValidOps(scr) && strings.Contains(plain, "[error]") {
			t.Fatalf("%x: valid operations rendered %q", scr, plain)
		}
		ops := 0
		for pc := 0; pc < len(scr); ops++ {
			_, _, next, ok := NextOp(scr, pc)
			if !ok {
				ops++
				break
			}
			pc = next
		}
		if plain != "" && len(strings.Split(plain, " ")) != ops {
			t.Fatalf("%x: %d operations, asm %q", scr, ops, plain)
		}
	})
}
