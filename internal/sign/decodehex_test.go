package sign

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testvec"
)

// zeroInOneOut is a legacy transaction with no input and one OP_TRUE
// output: the extended reading takes its empty input vector for the segwit
// marker and fails, the legacy reading succeeds.
const zeroInOneOut = "02000000" + "00" + "01" + "e803000000000000" + "0151" + "00000000"

// witnessTx is a one-input transaction with a one-item witness.
const witnessTx = "02000000" + "0001" + "01" + "1111111111111111111111111111111111111111111111111111111111111111" +
	"00000000" + "00" + "ffffffff" + "01" + "e803000000000000" + "0151" + "01" + "01" + "aa" + "00000000"

func TestDecodeHexTxModes(t *testing.T) {
	for _, c := range []struct {
		name                     string
		hex                      string
		tryNoWitness, tryWitness bool
		ok                       bool
		inputs                   int
	}{
		{"zero inputs, both", zeroInOneOut, true, true, true, 0},
		{"zero inputs, legacy only", zeroInOneOut, true, false, true, 0},
		{"zero inputs, witness only", zeroInOneOut, false, true, false, 0},
		{"witness, both", witnessTx, true, true, true, 1},
		{"witness, witness only", witnessTx, false, true, true, 1},
		{"witness, legacy only", witnessTx, true, false, false, 0},
		{"upper case", strings.ToUpper(witnessTx), true, true, true, 1},
		{"empty", "", true, true, false, 0},
		{"odd", zeroInOneOut + "0", true, true, false, 0},
		{"trailing byte", zeroInOneOut + "00", true, true, false, 0},
		{"not hex", "zz" + zeroInOneOut[2:], true, true, false, 0},
	} {
		tx, ok := DecodeHexTx(c.hex, c.tryNoWitness, c.tryWitness)
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.name, ok, c.ok)
			continue
		}
		if ok && len(tx.TxIn) != c.inputs {
			t.Errorf("%s: %d inputs, want %d", c.name, len(tx.TxIn), c.inputs)
		}
	}
}

// TestDecodeHexTxPrefersSaneScripts checks the sanity check Core uses to
// choose between the two readings: an output script holding an opcode
// above OP_NOP10 fails it.
func TestDecodeHexTxPrefersSaneScripts(t *testing.T) {
	tx, ok := DecodeHexTx(witnessTx, true, true)
	if !ok || len(tx.TxIn) != 1 || len(tx.TxIn[0].Witness) != 1 {
		t.Fatalf("witness reading not chosen: %v %+v", ok, tx)
	}
	bad := &wire.MsgTx{Version: 2, TxOut: []*wire.TxOut{{Value: 1, PkScript: []byte{0xba}}}}
	if scriptsSane(bad) {
		t.Fatal("an output holding opcode 0xba passes the sanity check")
	}
	bad.TxOut[0].PkScript = []byte{0x51}
	if !scriptsSane(bad) {
		t.Fatal("an OP_TRUE output fails the sanity check")
	}
}

// FuzzDecodeHexTx checks that DecodeHexTx never panics and that what it
// accepts serializes back to exactly the bytes it read.
func FuzzDecodeHexTx(f *testing.F) {
	var rows [][]json.RawMessage
	testvec.Load(f, "tx_valid.json", &rows)
	for _, r := range rows {
		var s string
		if len(r) >= 2 && json.Unmarshal(r[1], &s) == nil {
			f.Add(s, true, true)
		}
	}
	f.Add(zeroInOneOut, true, true)
	f.Add(witnessTx, false, true)
	f.Add(witnessTx, true, false)
	f.Add("", true, true)
	f.Fuzz(func(t *testing.T, s string, tryNoWitness, tryWitness bool) {
		tx, ok := DecodeHexTx(s, tryNoWitness, tryWitness)
		if !ok {
			return
		}
		var b bytes.Buffer
		if err := tx.Serialize(&b); err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(b.Bytes()); got != strings.ToLower(s) {
			t.Fatalf("read %s, serializes as %s", s, got)
		}
	})
}
