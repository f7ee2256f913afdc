package wallet

import (
	"bytes"
	"testing"
)

// detailCases are events whose detail the encoders must agree on: no
// outputs, a fee, related, outputs without address, label or descriptors,
// an empty label, and strings encoding/json escapes.
func detailCases() []EventRecord {
	fee := int64(-141)
	empty, odd := "", "a\"b\\c<d>&e\x00\x1f\x7f\u2028\u2029é\xff"
	return []EventRecord{
		{},
		{Amount: -5000, Fee: &fee},
		{Amount: 1, Related: [32]byte{1, 2, 3}},
		{Amount: 1000, Outputs: []EventOutput{{Vout: 1, Address: "bcrt1qzyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3z4gqzu",
			Amount: 1000, Label: &empty, ParentDescs: []string{"raw(0014)#abcdefgh", "addr(x)#12345678"}}}},
		{Amount: 7, Outputs: []EventOutput{{Vout: 0, Amount: 3}, {Vout: 4294967295, Amount: 4, Label: &odd,
			Address: odd, ParentDescs: []string{odd}}}},
	}
}

// TestEncodeEventDetail: the direct encoder writes what encoding/json
// writes, and it decodes back to the event's content.
func TestEncodeEventDetail(t *testing.T) {
	for i, e := range detailCases() {
		got, want := EncodeEventDetail(e), encodeEventDetailJSON(e)
		if !bytes.Equal(got, want) {
			t.Errorf("case %d: %s, want %s", i, got, want)
		}
		var back EventRecord
		if err := DecodeEventDetail(got, &back); err != nil || back.Amount != e.Amount ||
			len(back.Outputs) != len(e.Outputs) || back.Related != e.Related {
			t.Errorf("case %d: decoded %+v %v", i, back, err)
		}
	}
}

// FuzzEncodeEventDetail compares the direct encoder with encoding/json on
// any strings and numbers.
func FuzzEncodeEventDetail(f *testing.F) {
	f.Add(int64(1000), int64(-3), uint32(1), "bcrt1qaddress", "label", "raw(00)#checksum", true, true)
	f.Add(int64(-1), int64(0), uint32(0), "", "", "", false, false)
	f.Add(int64(5), int64(9), uint32(7), "<&>", "\u2028\xff\x00", "\"\\", true, false)
	f.Fuzz(func(t *testing.T, amount, fee int64, vout uint32, addr, label, desc string, hasFee, hasLabel bool) {
		e := EventRecord{Amount: amount, Related: [32]byte{byte(vout)}}
		if hasFee {
			e.Fee = &fee
		}
		o := EventOutput{Vout: vout, Address: addr, Amount: amount, ParentDescs: []string{desc, addr}}
		if hasLabel {
			o.Label = &label
		}
		e.Outputs = []EventOutput{o, {Vout: vout + 1}}
		if got, want := EncodeEventDetail(e), encodeEventDetailJSON(e); !bytes.Equal(got, want) {
			t.Errorf("%s, want %s", got, want)
		}
	})
}
