package sign

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/internal/testvec"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func mustTx(t testing.TB, s string) *wire.MsgTx {
	t.Helper()
	tx, err := DecodeTx(s)
	if err != nil {
		t.Fatalf("decode tx: %v", err)
	}
	return tx
}

func txHex(tx *wire.MsgTx) string {
	var b bytes.Buffer
	_ = tx.Serialize(&b)
	return hex.EncodeToString(b.Bytes())
}

// signerFor returns an input signer for input idx of tx with the given
// previous outputs (nil entries unknown), as SignTransaction builds it.
func signerFor(tx *wire.MsgTx, prev []*Coin, idx int, ht txscript.SigHashType) *inputSigner {
	coins := Coins{}
	for i, c := range prev {
		if c != nil {
			coins[tx.TxIn[i].PreviousOutPoint] = c
		}
	}
	ctx := newTxContext(tx, coins, NewProvider(), ht)
	c := ctx.coins[idx]
	if c == nil {
		c = &Coin{Amount: MaxMoney}
	}
	return &inputSigner{ctx: ctx, idx: idx, view: ctx.newView(), coin: c,
		sigs: map[[20]byte]sigPair{}}
}

// TestSigningBitcoinTx signs Core's bitcoin-tx cases and compares the
// exact signed transaction, and checks the expected failures.
func TestSigningBitcoinTx(t *testing.T) {
	var v struct {
		Cases []struct {
			ID               string            `json:"id"`
			Privkeys         []string          `json:"privkeys"`
			Prevtxs          []json.RawMessage `json:"prevtxs"`
			SighashType      string            `json:"sighash_type"`
			ExpectedSignedTx string            `json:"expected_signed_tx"`
			Unsigned         string            `json:"unsigned_tx_derived"`
			ExpectedError    string            `json:"expected_error"`
			Args             []string          `json:"bitcoin_tx_args"`
		} `json:"cases"`
	}
	testvec.Load(t, "signing_bitcoin_tx.json", &v)
	ran := 0
	for _, c := range v.Cases {
		if c.ExpectedSignedTx == "" || c.Unsigned == "" {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			tx := mustTx(t, c.Unsigned)
			// bitcoin-tx applies its commands in order: the outputs named
			// after sign= were added to the transaction after signing.
			later := 0
			for i := len(c.Args) - 1; i >= 0 && !strings.HasPrefix(c.Args[i], "sign="); i-- {
				if strings.HasPrefix(c.Args[i], "outaddr=") {
					later++
				}
			}
			added := tx.TxOut[len(tx.TxOut)-later:]
			tx.TxOut = tx.TxOut[:len(tx.TxOut)-later]
			p := NewProvider()
			for _, w := range c.Privkeys {
				k, err := DecodeWIF(w, &chaincfg.MainNetParams)
				if err != nil {
					t.Fatalf("wif %s: %v", w, err)
				}
				p.AddKey(k)
			}
			coins := Coins{}
			for _, raw := range c.Prevtxs {
				var pt struct {
					TxID         string  `json:"txid"`
					Vout         uint32  `json:"vout"`
					ScriptPubKey string  `json:"scriptPubKey"`
					Amount       *string `json:"amount"`
				}
				if err := json.Unmarshal(raw, &pt); err != nil {
					t.Fatal(err)
				}
				h, _ := chainhash.NewHashFromStr(pt.TxID)
				amount := int64(MaxMoney)
				if pt.Amount != nil {
					f, err := strconv.ParseFloat(*pt.Amount, 64)
					if err != nil {
						t.Fatal(err)
					}
					amount = int64(f * 1e8)
				}
				coins[wire.OutPoint{Hash: *h, Index: pt.Vout}] = &Coin{
					PkScript: mustHex(t, pt.ScriptPubKey), Amount: amount}
			}
			ht := map[string]txscript.SigHashType{"ALL": txscript.SigHashAll,
				"NONE": txscript.SigHashNone, "SINGLE": txscript.SigHashSingle}[c.SighashType]
			errs, err := SignTransaction(tx, coins, p, ht)
			if err != nil || len(errs) != 0 {
				t.Fatalf("sign: %v %v", err, errs)
			}
			tx.TxOut = append(tx.TxOut, added...)
			if got := txHex(tx); got != c.ExpectedSignedTx {
				t.Fatalf("signed tx\n got %s\nwant %s", got, c.ExpectedSignedTx)
			}
		})
		ran++
	}
	if ran == 0 {
		t.Fatal("no exact-signature cases")
	}

	// The segwit input without an amount fails the whole call.
	tx := mustTx(t, "020000000100112233445566778899aabbccddeeff00112233445566778899aabbccddeeff0000000000ffffffff0000000000")
	k, _ := DecodeWIF("KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn", &chaincfg.MainNetParams)
	coins := Coins{tx.TxIn[0].PreviousOutPoint: {PkScript: mustHex(t, "0014751e76e8199196d454941c45d1b3a323f1433bd6"), Amount: MaxMoney}}
	if _, err := SignTransaction(tx, coins, NewProvider(k), txscript.SigHashAll); !errors.Is(err, ErrMissingAmount) {
		t.Fatalf("missing amount: got %v", err)
	}
}

// TestSigHashLegacy computes every Core sighash.json case through the
// signer's own legacy sighash path.
func TestSigHashLegacy(t *testing.T) {
	var rows [][]json.RawMessage
	testvec.Load(t, "sighash_legacy.json", &rows)
	n := 0
	for i, r := range rows {
		if len(r) != 5 {
			continue
		}
		var rawTx, scr, want string
		var idx int
		var ht int64
		_ = json.Unmarshal(r[0], &rawTx)
		_ = json.Unmarshal(r[1], &scr)
		_ = json.Unmarshal(r[2], &idx)
		_ = json.Unmarshal(r[3], &ht)
		_ = json.Unmarshal(r[4], &want)
		tx := mustTx(t, rawTx)
		s := signerFor(tx, nil, idx, txscript.SigHashAll)
		h, err := s.sigHash(mustHex(t, scr), txscript.SigHashType(uint32(ht)), sigBase)
		if err != nil {
			// btcd refuses script codes that do not parse; Core hashes
			// them anyway. Those rows are not signable scripts.
			continue
		}
		var rev chainhash.Hash
		copy(rev[:], h)
		if rev.String() != want {
			t.Errorf("row %d: sighash %s, want %s", i, rev.String(), want)
		}
		n++
	}
	if n < 400 {
		t.Fatalf("only %d legacy sighash rows checked", n)
	}
}

// TestSigHashBIP143 computes the BIP 143 examples' signature hashes through
// the signer's witness v0 path.
func TestSigHashBIP143(t *testing.T) {
	var v struct {
		Examples []struct {
			Section      string `json:"section"`
			Unsigned     string `json:"unsigned_tx"`
			UnsignedDer  string `json:"unsigned_tx_derived"`
			SigningSteps []struct {
				Sighash   string `json:"sighash"`
				HashType  uint32 `json:"hash_type"`
				Index     int    `json:"input_index"`
				Signature string `json:"signature"`
				Fields    struct {
					ScriptCode string `json:"scriptCode"`
					AmountSat  int64  `json:"amount_sat"`
				} `json:"preimage_fields"`
			} `json:"signing_steps"`
		} `json:"examples"`
	}
	testvec.Load(t, "bip143.json", &v)
	n := 0
	for _, ex := range v.Examples {
		raw := ex.Unsigned
		if raw == "" {
			raw = ex.UnsignedDer
		}
		tx := mustTx(t, raw)
		for _, st := range ex.SigningSteps {
			sc := mustHex(t, st.Fields.ScriptCode)
			// Drop the compact-size length prefix.
			switch {
			case sc[0] < 0xfd:
				sc = sc[1:]
			default:
				sc = sc[3:]
			}
			prev := make([]*Coin, len(tx.TxIn))
			prev[st.Index] = &Coin{Amount: st.Fields.AmountSat}
			s := signerFor(tx, prev, st.Index, txscript.SigHashAll)
			h, err := s.sigHash(sc, txscript.SigHashType(st.HashType), sigWitnessV0)
			if err != nil {
				t.Fatalf("%s: %v", ex.Section, err)
			}
			if hex.EncodeToString(h) != st.Sighash {
				t.Errorf("%s input %d type %d: sighash %x, want %s",
					ex.Section, st.Index, st.HashType, h, st.Sighash)
			}
			n++
		}
	}
	if n != 14 {
		t.Fatalf("checked %d BIP 143 signature hashes, want 14", n)
	}
}

type bip341Vectors struct {
	KeyPathSpending []struct {
		Given struct {
			RawUnsignedTx string `json:"rawUnsignedTx"`
			UtxosSpent    []struct {
				ScriptPubKey string `json:"scriptPubKey"`
				AmountSats   int64  `json:"amountSats"`
			} `json:"utxosSpent"`
		} `json:"given"`
		InputSpending []struct {
			Given struct {
				TxinIndex       int     `json:"txinIndex"`
				InternalPrivkey string  `json:"internalPrivkey"`
				MerkleRoot      *string `json:"merkleRoot"`
				HashType        uint32  `json:"hashType"`
			} `json:"given"`
			Intermediary struct {
				TweakedPrivkey string `json:"tweakedPrivkey"`
				SigHash        string `json:"sigHash"`
			} `json:"intermediary"`
			Expected struct {
				Witness []string `json:"witness"`
			} `json:"expected"`
		} `json:"inputSpending"`
	} `json:"keyPathSpending"`
}

func privKey(t testing.TB, h string) *secp256k1.PrivateKey {
	return secp256k1.PrivKeyFromBytes(mustHex(t, h))
}

// TestBIP341KeyPath checks the BIP 341 wallet vectors: the signature hash
// of each key-path input through the signer's taproot path, and the
// witness the signer produces, with the tweaked key (Core's way) and, for
// outputs without a script tree, with the internal key (BIP 86).
func TestBIP341KeyPath(t *testing.T) {
	var v bip341Vectors
	testvec.Load(t, "bip341_wallet.json", &v)
	n := 0
	for _, kp := range v.KeyPathSpending {
		prev := make([]*Coin, len(kp.Given.UtxosSpent))
		for i, u := range kp.Given.UtxosSpent {
			prev[i] = &Coin{PkScript: mustHex(t, u.ScriptPubKey), Amount: u.AmountSats}
		}
		for _, in := range kp.InputSpending {
			tx := mustTx(t, kp.Given.RawUnsignedTx)
			ht := txscript.SigHashType(in.Given.HashType)
			s := signerFor(tx, prev, in.Given.TxinIndex, ht)
			h, err := s.taprootSigHash(ht)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(h) != in.Intermediary.SigHash {
				t.Errorf("input %d: sighash %x, want %s", in.Given.TxinIndex, h, in.Intermediary.SigHash)
			}

			keys := []string{in.Intermediary.TweakedPrivkey}
			if in.Given.MerkleRoot == nil {
				keys = append(keys, in.Given.InternalPrivkey)
			}
			for _, kh := range keys {
				tx := mustTx(t, kp.Given.RawUnsignedTx)
				coins := Coins{}
				for i, c := range prev {
					coins[tx.TxIn[i].PreviousOutPoint] = c
				}
				p := NewProvider(NewKey(privKey(t, kh), true))
				if _, err := SignTransaction(tx, coins, p, ht); err != nil {
					t.Fatal(err)
				}
				w := tx.TxIn[in.Given.TxinIndex].Witness
				var got []string
				for _, it := range w {
					got = append(got, hex.EncodeToString(it))
				}
				if strings.Join(got, ",") != strings.Join(in.Expected.Witness, ",") {
					t.Errorf("input %d key %s…: witness %v, want %v",
						in.Given.TxinIndex, kh[:8], got, in.Expected.Witness)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no key-path vectors")
	}
}
