package sign

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/btcsuite/btcd/txscript/v2"
)

func scriptErrCode(err error) (txscript.ErrorCode, bool) {
	var se txscript.Error
	if !errors.As(err, &se) {
		return 0, false
	}
	return se.ErrorCode, true
}

// TestPushOnlyEvalError: the checks Core's EvalScript makes on a push-only
// scriptSig under the standard flags, in its order.
func TestPushOnlyEvalError(t *testing.T) {
	big := append([]byte{0x4d, 0x09, 0x02}, bytes.Repeat([]byte{1}, 521)...) // PUSHDATA2 of 521 bytes
	many := bytes.Repeat([]byte{0x51}, 1001)
	for _, c := range []struct {
		name   string
		script string
		code   txscript.ErrorCode
		ok     bool // no error
	}{
		{name: "empty", script: "", ok: true},
		{name: "minimal pushes", script: "0003aabbcc51", ok: true},
		{name: "pushdata1 where a direct push does", script: "4c03aabbcc", code: txscript.ErrMinimalData},
		{name: "one byte 0x05 pushed as data", script: "0105", code: txscript.ErrMinimalData},
		{name: "empty push by pushdata1", script: "4c00", code: txscript.ErrMinimalData},
		{name: "OP_RESERVED", script: "0150" + "50", code: txscript.ErrReservedOpcode},
		{name: "truncated push", script: "03aabb", code: txscript.ErrMalformedPush},
		{name: "too big before not minimal", script: hex.EncodeToString(big), code: txscript.ErrElementTooBig},
		{name: "stack overflow", script: hex.EncodeToString(many), code: txscript.ErrStackOverflow},
	} {
		s, _ := hex.DecodeString(c.script)
		err := pushOnlyEvalError(s)
		if c.ok {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if code, ok := scriptErrCode(err); !ok || code != c.code {
			t.Errorf("%s: got %v, want %v", c.name, err, c.code)
		}
	}
}

// TestLastPush: the item the last push of a scriptSig leaves.
func TestLastPush(t *testing.T) {
	for _, c := range []struct {
		script, want string
		ok           bool
	}{
		{"", "", false},
		{"02aabb", "aabb", true},
		{"0002aabb00", "", true},
		{"02aabb51", "01", true},
		{"02aabb4f", "81", true},
		{"02aabb60", "10", true},
		{"02aabb50", "", false},
		{"02aabbac", "", false},
		{"03aabb", "", false},
	} {
		s, _ := hex.DecodeString(c.script)
		got, ok := lastPush(s)
		if ok != c.ok || hex.EncodeToString(got) != c.want {
			t.Errorf("%s: got %x %v, want %s %v", c.script, got, ok, c.want, c.ok)
		}
	}
}

// FuzzPushOnlyEvalError: the scriptSig checks never panic and fail only
// with script errors.
func FuzzPushOnlyEvalError(f *testing.F) {
	for _, s := range []string{"", "0003aabbcc51", "4c03aabbcc", "0150", "03aabb"} {
		b, _ := hex.DecodeString(s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		if len(s) > 20000 {
			return
		}
		err := pushOnlyEvalError(s)
		lastPush(s)
		if err != nil {
			if _, ok := scriptErrCode(err); !ok {
				t.Fatalf("error of type %T", err)
			}
		}
	})
}
