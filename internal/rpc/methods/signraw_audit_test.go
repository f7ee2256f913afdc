package methods

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	btcaddr "github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/testvec"
)

// The audit tests drive signrawtransactionwithkey through the in-process
// server (envelope, top-level argument checks, error mapping) and compare
// with the behaviour of spec section (d): argument errors and their order,
// prevtxs validation, amount and vout parsing, sighash strings, and the
// result shape.

// auditSignServer serves signrawtransactionwithkey on regtest.
func auditSignServer(t *testing.T) *rpc.Server {
	t.Helper()
	d := &Deps{Net: &chaincfg.RegressionNetParams}
	auth := rpc.NewAuthenticator()
	auth.AddPassword("u", "p")
	s, err := rpc.NewServer(rpc.Config{
		Methods:  []*rpc.Method{newSignRawTransactionWithKey(d)},
		Auth:     auth,
		MapError: MapError,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// auditRaw sends one legacy request whose params are the given JSON text
// and returns the raw reply body.
func auditRaw(t *testing.T, s *rpc.Server, params string) []byte {
	t.Helper()
	body := `{"jsonrpc":"1.0","id":1,"method":"signrawtransactionwithkey","params":` + params + `}`
	req := httptest.NewRequest("POST", "/", strings.NewReader(body))
	req.SetBasicAuth("u", "p")
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "127.0.0.1:5000"
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w.Body.Bytes()
}

// auditCall sends one request and decodes the reply.
func auditCall(t *testing.T, s *rpc.Server, params string) corpusReply {
	t.Helper()
	raw := auditRaw(t, s, params)
	var r corpusReply
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("reply %q: %v", raw, err)
	}
	return r
}

// Fixtures taken from the recorded corpus: a version-2 transaction with
// one input (fake txid auditTxid:0, sequence 0xfffffffd) and one P2WPKH
// output; the WIF of key k06; the P2WPKH script of k06.
const (
	auditTx   = "0200000001c61f9bdabe2388a621e4c3a65a3a456cb4d6cc7743d2984c1c0877aa87f70c3b0000000000fdffffff01605af40500000000160014089910b979e403d769d24174b9a22a3bf73e3b3c00000000"
	auditTxid = "3b0cf787aa77081c4c98d24377ccd6b46c453a5aa6c3e421a68823beda9b1fc6"
	auditWIF  = "cUuAEs79G7HujrHAhfe1Bub83ntmSwBXw6m4MUSoguEErT7GPCtS"
	auditSPK  = "0014b5d76a7534548b4137a680c33a25253a127624d0"
	// auditTprv is a BIP32 test-network private key (bip32 t01).
	auditTprv = "tprv8ZgxMBicQKsPdoXZPiEBEwtj6zDNfBRipdAw6KPjiAfuahEaVvENiVbMgRUucER44rjxzQLW2fS96SUGxgQd8ssnqyJAVcCZygQQWEZuEXk"
	// auditMainWIF is a mainnet WIF (mainnet m01).
	auditMainWIF = "KwboMKNrieTBF3eG5fjP4axMW5tj1hziriwNSH4dFzxBBA84Vjey"
	// P2SH and P2WSH scripts for a 1-of-1 multisig of k06 are built in
	// tests; these are scripts of the right shape that match nothing.
	auditP2SH  = "a9148b6a7efecc68bd82a86b2b39a9beece08153082d87"
	auditP2WSH = "0020e548936c06800a97eb1ec2cbd98bbf01d9bb7ba89dbbaaf7e7e1f43d0b8b66a1"
)

const txDecodeMsg = "TX decode failed. Make sure the tx has at least one input."

// prevtx returns a prevtxs entry for the fixture input with extra members
// (JSON text without braces) replacing or adding to the defaults.
func auditPrev(members string) string {
	return `{` + members + `}`
}

// auditGoodPrev is a complete, valid prevtxs entry for the fixture input.
var auditGoodPrev = auditPrev(`"txid":"` + auditTxid + `","vout":0,"scriptPubKey":"` + auditSPK + `","amount":0.5`)

// withAmount is the fixture entry with the amount member given as text.
func aWithAmount(a string) string {
	return auditPrev(`"txid":"` + auditTxid + `","vout":0,"scriptPubKey":"` + auditSPK + `","amount":` + a)
}

// withVout is the fixture entry with the vout member given as text.
func aWithVout(v string) string {
	return auditPrev(`"txid":"` + auditTxid + `","vout":` + v + `,"scriptPubKey":"` + auditSPK + `","amount":0.5`)
}

// withTxid is the fixture entry with the txid member given as text.
func aWithTxid(v string) string {
	return auditPrev(`"txid":` + v + `,"vout":0,"scriptPubKey":"` + auditSPK + `","amount":0.5`)
}

// withSPK is the fixture entry with the scriptPubKey member given as text.
func aWithSPK(v string) string {
	return auditPrev(`"txid":"` + auditTxid + `","vout":0,"scriptPubKey":` + v + `,"amount":0.5`)
}

// params builds a positional params array.
func aParams(items ...string) string { return "[" + strings.Join(items, ",") + "]" }

func aq(s string) string { b, _ := json.Marshal(s); return string(b) }

type auditErrCase struct {
	name   string
	params string
	code   int
	msg    string // exact message; "" with code -1 means "the help text"
}

func runAuditErrors(t *testing.T, cases []auditErrCase) {
	t.Helper()
	s := auditSignServer(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := auditCall(t, s, c.params)
			if got.Error == nil {
				t.Fatalf("got result %s, want error %d %q", got.Result, c.code, c.msg)
			}
			if got.Error.Code != c.code {
				t.Fatalf("code %d (%q), want %d %q", got.Error.Code, got.Error.Message, c.code, c.msg)
			}
			if c.msg == "" {
				if !strings.HasPrefix(got.Error.Message, "signrawtransactionwithkey ") {
					t.Fatalf("message %q is not the help text", got.Error.Message)
				}
				return
			}
			if got.Error.Message != c.msg {
				t.Fatalf("message\n got %q\nwant %q", got.Error.Message, c.msg)
			}
		})
	}
}

func aWrongType(pos int, name, got, want string) string {
	return fmt.Sprintf("Wrong type passed:\n{\n    \"Position %d (%s)\": \"JSON value of type %s is not of expected type %s\"\n}", pos, name, got, want)
}

// TestAuditSignArguments covers a.7 and d.1 steps 1, 2 and 5: argument
// count, top-level types, transaction decoding, keys and sighash strings,
// and the order decode → keys → prevtxs → sighash.
func TestAuditSignArguments(t *testing.T) {
	keys := "[" + aq(auditWIF) + "]"
	prev := "[" + auditGoodPrev + "]"
	cases := []auditErrCase{
		// a.7 step 4: argument count.
		{"no-args", `[]`, -1, ""},
		{"one-arg", aParams(aq(auditTx)), -1, ""},
		{"five-args", aParams(aq(auditTx), keys, prev, aq("ALL"), aq("x")), -1, ""},
		// a.7 step 5: top-level types.
		{"hex-number", aParams(`1`, keys), -3, aWrongType(1, "hexstring", "number", "string")},
		{"hex-null", aParams(`null`, keys), -3, aWrongType(1, "hexstring", "null", "string")},
		{"keys-string", aParams(aq(auditTx), aq(auditWIF)), -3, aWrongType(2, "privkeys", "string", "array")},
		{"keys-null", aParams(aq(auditTx), `null`), -3, aWrongType(2, "privkeys", "null", "array")},
		{"keys-object", aParams(aq(auditTx), `{}`), -3, aWrongType(2, "privkeys", "object", "array")},
		{"prevtxs-object", aParams(aq(auditTx), keys, auditGoodPrev), -3, aWrongType(3, "prevtxs", "object", "array")},
		{"prevtxs-string", aParams(aq(auditTx), keys, aq("x")), -3, aWrongType(3, "prevtxs", "string", "array")},
		{"sighash-number", aParams(aq(auditTx), keys, prev, `1`), -3, aWrongType(4, "sighashtype", "number", "string")},
		{"sighash-bool", aParams(aq(auditTx), keys, prev, `true`), -3, aWrongType(4, "sighashtype", "bool", "string")},
		{"sighash-array", aParams(aq(auditTx), keys, prev, `["ALL"]`), -3, aWrongType(4, "sighashtype", "array", "string")},
		{"two-bad-positions", aParams(`1`, aq("k")), -3, "Wrong type passed:\n{\n" +
			"    \"Position 1 (hexstring)\": \"JSON value of type number is not of expected type string\",\n" +
			"    \"Position 2 (privkeys)\": \"JSON value of type string is not of expected type array\"\n}"},

		// d.1 step 1: transaction decoding.
		{"tx-not-hex", aParams(aq("zz"), keys), -22, txDecodeMsg},
		{"tx-empty", aParams(aq(""), keys), -22, txDecodeMsg},
		{"tx-odd", aParams(aq(auditTx[:len(auditTx)-1]), keys), -22, txDecodeMsg},
		{"tx-space", aParams(aq(auditTx+" "), keys), -22, txDecodeMsg},
		{"tx-0x-prefix", aParams(aq("0x"+auditTx), keys), -22, txDecodeMsg},
		{"tx-truncated", aParams(aq(auditTx[:len(auditTx)-2]), keys), -22, txDecodeMsg},
		{"tx-trailing", aParams(aq(auditTx+"00"), keys), -22, txDecodeMsg},
		// Zero inputs: 00 is read as the segwit marker, 01 as the flag,
		// and the rest does not decode.
		{"tx-zero-inputs", aParams(aq("020000000001605af40500000000160014089910b979e403d769d24174b9a22a3bf73e3b3c00000000"), keys), -22, txDecodeMsg},
		// Segwit flag with every witness empty ("Superfluous witness record").
		{"tx-superfluous-witness", aParams(aq("02000000000101"+auditTx[10:len(auditTx)-8]+"00"+"00000000"), keys), -22, txDecodeMsg},
		// Unknown flag (0x02).
		{"tx-unknown-flag", aParams(aq("02000000000201"+auditTx[10:]), keys), -22, txDecodeMsg},
		// A length that is not minimally encoded (fd 0100 for 1 output).
		{"tx-noncanonical-size", aParams(aq(auditTx[:92]+"fd0100"+auditTx[94:]), keys), -22, txDecodeMsg},
		// Bad transaction beats a bad key.
		{"tx-before-key", aParams(aq("zz"), `["bad"]`), -22, txDecodeMsg},
		{"tx-before-key-type", aParams(aq("zz"), `[1]`), -22, txDecodeMsg},

		// d.1 step 2: keys.
		{"key-garbage", aParams(aq(auditTx), `["notakey"]`), -5, "Invalid private key"},
		{"key-empty", aParams(aq(auditTx), `[""]`), -5, "Invalid private key"},
		{"key-checksum", aParams(aq(auditTx), "["+aq(auditWIF[:len(auditWIF)-1]+"T")+"]"), -5, "Invalid private key"},
		{"key-mainnet", aParams(aq(auditTx), "["+aq(auditMainWIF)+"]"), -5, "Invalid private key"},
		{"key-raw-hex", aParams(aq(auditTx), `["c498140873ecdb1181f013bdfe13d219aec3bc70a449dc012c212b5b7e65e00a"]`), -5, "Invalid private key"},
		{"key-tprv", aParams(aq(auditTx), "["+aq(auditTprv)+"]"), -5, "Invalid private key"},
		{"key-leading-space", aParams(aq(auditTx), "["+aq(" "+auditWIF)+"]"), -5, "Invalid private key"},
		{"key-bad-after-good", aParams(aq(auditTx), "["+aq(auditWIF)+`,"bad"]`), -5, "Invalid private key"},
		{"key-number", aParams(aq(auditTx), `[1]`), -3, "JSON value of type number is not of expected type string"},
		{"key-null", aParams(aq(auditTx), `[null]`), -3, "JSON value of type null is not of expected type string"},
		{"key-object", aParams(aq(auditTx), `[{}]`), -3, "JSON value of type object is not of expected type string"},
		{"key-array", aParams(aq(auditTx), `[[]]`), -3, "JSON value of type array is not of expected type string"},
		{"key-number-after-good", aParams(aq(auditTx), "["+aq(auditWIF)+`,1]`), -3, "JSON value of type number is not of expected type string"},
		// Keys are read one by one: the first problem in order wins.
		{"key-bad-then-number", aParams(aq(auditTx), `["bad",1]`), -5, "Invalid private key"},
		{"key-number-then-bad", aParams(aq(auditTx), `[1,"bad"]`), -3, "JSON value of type number is not of expected type string"},
		// A bad key beats a bad prevtxs entry, which beats a bad sighash.
		{"key-before-prevtx", aParams(aq(auditTx), `["bad"]`, `[1]`, aq("bogus")), -5, "Invalid private key"},
		{"prevtx-before-sighash", aParams(aq(auditTx), keys, `[1]`, aq("bogus")), -22, `expected object with {"txid'","vout","scriptPubKey"}`},
		{"amount-before-sighash", aParams(aq(auditTx), keys, "["+aWithAmount(`"x"`)+"]", aq("bogus")), -3, "Invalid amount"},

		// d.1 step 5: sighash strings are exact and case-sensitive.
		{"sighash-lower", aParams(aq(auditTx), keys, prev, aq("all")), -8, "'all' is not a valid sighash parameter."},
		{"sighash-default-lower", aParams(aq(auditTx), keys, prev, aq("default")), -8, "'default' is not a valid sighash parameter."},
		{"sighash-mixed-case", aParams(aq(auditTx), keys, prev, aq("All")), -8, "'All' is not a valid sighash parameter."},
		{"sighash-all-none", aParams(aq(auditTx), keys, prev, aq("ALL|NONE")), -8, "'ALL|NONE' is not a valid sighash parameter."},
		{"sighash-acp-alone", aParams(aq(auditTx), keys, prev, aq("ANYONECANPAY")), -8, "'ANYONECANPAY' is not a valid sighash parameter."},
		{"sighash-trailing-space", aParams(aq(auditTx), keys, prev, aq("ALL ")), -8, "'ALL ' is not a valid sighash parameter."},
		{"sighash-leading-space", aParams(aq(auditTx), keys, prev, aq(" ALL")), -8, "' ALL' is not a valid sighash parameter."},
		{"sighash-empty", aParams(aq(auditTx), keys, prev, aq("")), -8, "'' is not a valid sighash parameter."},
		{"sighash-prefixed", aParams(aq(auditTx), keys, prev, aq("SIGHASH_ALL")), -8, "'SIGHASH_ALL' is not a valid sighash parameter."},
		{"sighash-reversed", aParams(aq(auditTx), keys, prev, aq("ANYONECANPAY|ALL")), -8, "'ANYONECANPAY|ALL' is not a valid sighash parameter."},
		{"sighash-default-acp", aParams(aq(auditTx), keys, prev, aq("DEFAULT|ANYONECANPAY")), -8, "'DEFAULT|ANYONECANPAY' is not a valid sighash parameter."},
		{"sighash-spaces-around-bar", aParams(aq(auditTx), keys, prev, aq("ALL | ANYONECANPAY")), -8, "'ALL | ANYONECANPAY' is not a valid sighash parameter."},
		{"sighash-number-string", aParams(aq(auditTx), keys, prev, aq("1")), -8, "'1' is not a valid sighash parameter."},
		// The sighash is checked even without prevtxs.
		{"sighash-null-prevtxs", aParams(aq(auditTx), keys, `null`, aq("all")), -8, "'all' is not a valid sighash parameter."},
		{"sighash-empty-prevtxs", aParams(aq(auditTx), `[]`, `[]`, aq("all")), -8, "'all' is not a valid sighash parameter."},
	}
	runAuditErrors(t, cases)
}

// TestAuditSignPrevtxs covers d.1 step 4: every prevtxs validation message,
// in Core's order.
func TestAuditSignPrevtxs(t *testing.T) {
	keys := "[" + aq(auditWIF) + "]"
	one := func(entries ...string) string {
		return aParams(aq(auditTx), keys, "["+strings.Join(entries, ",")+"]")
	}
	const notObject = `expected object with {"txid'","vout","scriptPubKey"}`
	txid63 := auditTxid[:63]
	cases := []auditErrCase{
		{"element-number", one(`1`), -22, notObject},
		{"element-string", one(`"x"`), -22, notObject},
		{"element-null", one(`null`), -22, notObject},
		{"element-array", one(`[]`), -22, notObject},
		{"element-bool", one(`true`), -22, notObject},
		{"good-then-bad-element", one(auditGoodPrev, `1`), -22, notObject},

		// Required fields in name order: scriptPubKey, txid, vout.
		{"missing-all", one(`{}`), -3, "Missing scriptPubKey"},
		{"missing-spk", one(auditPrev(`"txid":"` + auditTxid + `","vout":0`)), -3, "Missing scriptPubKey"},
		{"missing-txid", one(auditPrev(`"vout":0,"scriptPubKey":"` + auditSPK + `"`)), -3, "Missing txid"},
		{"missing-vout", one(auditPrev(`"txid":"` + auditTxid + `","scriptPubKey":"` + auditSPK + `"`)), -3, "Missing vout"},
		{"null-spk", one(aWithSPK(`null`)), -3, "Missing scriptPubKey"},
		{"null-txid", one(aWithTxid(`null`)), -3, "Missing txid"},
		{"null-vout", one(aWithVout(`null`)), -3, "Missing vout"},
		// A wrong type of an earlier field is reported before a later
		// missing one.
		{"spk-type-before-missing-txid", one(auditPrev(`"scriptPubKey":1`)), -3, "JSON value of type number for field scriptPubKey is not of expected type string"},
		{"txid-type-before-missing-vout", one(auditPrev(`"scriptPubKey":"00","txid":1`)), -3, "JSON value of type number for field txid is not of expected type string"},
		{"spk-number", one(aWithSPK(`1`)), -3, "JSON value of type number for field scriptPubKey is not of expected type string"},
		{"spk-bool", one(aWithSPK(`false`)), -3, "JSON value of type bool for field scriptPubKey is not of expected type string"},
		{"spk-object", one(aWithSPK(`{}`)), -3, "JSON value of type object for field scriptPubKey is not of expected type string"},
		{"txid-number", one(aWithTxid(`1`)), -3, "JSON value of type number for field txid is not of expected type string"},
		{"txid-array", one(aWithTxid(`[]`)), -3, "JSON value of type array for field txid is not of expected type string"},
		{"vout-string", one(aWithVout(`"0"`)), -3, "JSON value of type string for field vout is not of expected type number"},
		{"vout-bool", one(aWithVout(`true`)), -3, "JSON value of type bool for field vout is not of expected type number"},
		{"vout-array", one(aWithVout(`[0]`)), -3, "JSON value of type array for field vout is not of expected type number"},

		// txid (ParseHashV).
		{"txid-short", one(aWithTxid(aq(txid63))), -8, "txid must be of length 64 (not 63, for '" + txid63 + "')"},
		{"txid-long", one(aWithTxid(aq(auditTxid + "00"))), -8, "txid must be of length 64 (not 66, for '" + auditTxid + "00')"},
		{"txid-empty", one(aWithTxid(`""`)), -8, "txid must be of length 64 (not 0, for '')"},
		{"txid-not-hex", one(aWithTxid(aq(strings.Repeat("g", 64)))), -8, "txid must be hexadecimal string (not '" + strings.Repeat("g", 64) + "')"},
		{"txid-short-not-hex", one(aWithTxid(`"xyz"`)), -8, "txid must be of length 64 (not 3, for 'xyz')"},
		{"txid-multibyte", one(aWithTxid(aq(strings.Repeat("é", 32)))), -8, "txid must be hexadecimal string (not '" + strings.Repeat("é", 32) + "')"},
		// The txid is checked before vout and scriptPubKey.
		{"txid-before-vout", one(auditPrev(`"txid":"xyz","vout":-1,"scriptPubKey":"zz"`)), -8, "txid must be of length 64 (not 3, for 'xyz')"},

		// vout (getInt<int>, then the sign).
		{"vout-negative", one(aWithVout(`-1`)), -22, "vout cannot be negative"},
		{"vout-min-int32", one(aWithVout(`-2147483648`)), -22, "vout cannot be negative"},
		{"vout-below-int32", one(aWithVout(`-2147483649`)), -1, "JSON integer out of range"},
		{"vout-fraction", one(aWithVout(`0.5`)), -1, "JSON integer out of range"},
		{"vout-integral-fraction", one(aWithVout(`1.0`)), -1, "JSON integer out of range"},
		{"vout-exponent", one(aWithVout(`1e0`)), -1, "JSON integer out of range"},
		{"vout-2^31", one(aWithVout(`2147483648`)), -1, "JSON integer out of range"},
		{"vout-2^32-1", one(aWithVout(`4294967295`)), -1, "JSON integer out of range"},
		{"vout-huge", one(aWithVout(`123456789012345678901234567890`)), -1, "JSON integer out of range"},
		{"vout-negative-fraction", one(aWithVout(`-0.5`)), -1, "JSON integer out of range"},
		// vout is checked before the scriptPubKey.
		{"vout-before-spk", one(auditPrev(`"txid":"` + auditTxid + `","vout":-1,"scriptPubKey":"zz"`)), -22, "vout cannot be negative"},

		// scriptPubKey (ParseHexV).
		{"spk-empty", one(aWithSPK(`""`)), -8, "scriptPubKey must be hexadecimal string (not '')"},
		{"spk-odd", one(aWithSPK(`"001"`)), -8, "scriptPubKey must be hexadecimal string (not '001')"},
		{"spk-not-hex", one(aWithSPK(`"zz"`)), -8, "scriptPubKey must be hexadecimal string (not 'zz')"},
		{"spk-space", one(aWithSPK(`"00 14"`)), -8, "scriptPubKey must be hexadecimal string (not '00 14')"},
		// The scriptPubKey is checked before the amount.
		{"spk-before-amount", one(auditPrev(`"txid":"` + auditTxid + `","vout":0,"scriptPubKey":"zz","amount":true`)), -8, "scriptPubKey must be hexadecimal string (not 'zz')"},

		// Duplicate outpoints with different scripts: the earlier one on top.
		{"duplicate-mismatch", one(auditGoodPrev, aWithSPK(`"0014089910b979e403d769d24174b9a22a3bf73e3b3c"`)), -22,
			"Previous output scriptPubKey mismatch:\n0 b5d76a7534548b4137a680c33a25253a127624d0\nvs:\n0 089910b979e403d769d24174b9a22a3bf73e3b3c"},
		// The mismatch is found before the second entry's amount is read.
		{"duplicate-mismatch-before-amount", one(auditGoodPrev, auditPrev(`"txid":"`+auditTxid+`","vout":0,"scriptPubKey":"51","amount":true`)), -22,
			"Previous output scriptPubKey mismatch:\n0 b5d76a7534548b4137a680c33a25253a127624d0\nvs:\n1"},
		// Outpoints the transaction does not spend are compared too.
		{"duplicate-mismatch-unspent-outpoint", one(
			auditPrev(`"txid":"`+strings.Repeat("ab", 32)+`","vout":7,"scriptPubKey":"76a914b5d76a7534548b4137a680c33a25253a127624d088ac"`),
			auditPrev(`"txid":"`+strings.Repeat("ab", 32)+`","vout":7,"scriptPubKey":"6a0401020304"`)), -22,
			"Previous output scriptPubKey mismatch:\nOP_DUP OP_HASH160 b5d76a7534548b4137a680c33a25253a127624d0 OP_EQUALVERIFY OP_CHECKSIG\nvs:\nOP_RETURN 67305985"},
		// Entries are validated even for outpoints the tx does not spend,
		// P2SH ones included.
		{"unused-p2sh-entry-needs-script", one(auditGoodPrev, auditPrev(`"txid":"`+strings.Repeat("ab", 32)+`","vout":1,"scriptPubKey":"`+auditP2SH+`"`)), -8, "Missing redeemScript/witnessScript"},
		{"unused-entry-validated", one(auditGoodPrev, auditPrev(`"txid":"`+strings.Repeat("ab", 32)+`","vout":-1,"scriptPubKey":"51"`)), -22, "vout cannot be negative"},

		// amount (AmountFromValue).
		{"amount-null", one(aWithAmount(`null`)), -3, "Amount is not a number or string"},
		{"amount-bool", one(aWithAmount(`true`)), -3, "Amount is not a number or string"},
		{"amount-object", one(aWithAmount(`{}`)), -3, "Amount is not a number or string"},
		{"amount-array", one(aWithAmount(`[1]`)), -3, "Amount is not a number or string"},
		{"amount-abc", one(aWithAmount(`"abc"`)), -3, "Invalid amount"},
		{"amount-empty-string", one(aWithAmount(`""`)), -3, "Invalid amount"},
		{"amount-nine-decimals", one(aWithAmount(`0.123456789`)), -3, "Invalid amount"},
		{"amount-nine-decimals-string", one(aWithAmount(`"0.000000001"`)), -3, "Invalid amount"},
		{"amount-leading-dot", one(aWithAmount(`".5"`)), -3, "Invalid amount"},
		{"amount-trailing-dot", one(aWithAmount(`"1."`)), -3, "Invalid amount"},
		{"amount-leading-zero", one(aWithAmount(`"01"`)), -3, "Invalid amount"},
		{"amount-plus", one(aWithAmount(`"+1"`)), -3, "Invalid amount"},
		{"amount-space", one(aWithAmount(`" 1"`)), -3, "Invalid amount"},
		{"amount-hex", one(aWithAmount(`"0x10"`)), -3, "Invalid amount"},
		{"amount-tiny-exponent", one(aWithAmount(`1e-9`)), -3, "Invalid amount"},
		// 10^10 BTC and more cannot be represented: "Invalid amount", not
		// "out of range".
		{"amount-1e10", one(aWithAmount(`1e10`)), -3, "Invalid amount"},
		{"amount-10-billion", one(aWithAmount(`10000000000`)), -3, "Invalid amount"},
		{"amount-huge", one(aWithAmount(`99999999999999999999`)), -3, "Invalid amount"},
		{"amount-negative", one(aWithAmount(`-1`)), -3, "Amount out of range"},
		{"amount-negative-satoshi", one(aWithAmount(`-0.00000001`)), -3, "Amount out of range"},
		{"amount-negative-string", one(aWithAmount(`"-0.5"`)), -3, "Amount out of range"},
		{"amount-too-large", one(aWithAmount(`21000000.1`)), -3, "Amount out of range"},
		{"amount-max-plus-satoshi", one(aWithAmount(`21000000.00000001`)), -3, "Amount out of range"},
		{"amount-1e9", one(aWithAmount(`1e9`)), -3, "Amount out of range"},
		{"amount-too-large-string", one(aWithAmount(`"22000000"`)), -3, "Amount out of range"},
		// An amount error in a later entry after a good one.
		{"amount-second-entry", one(auditGoodPrev, auditPrev(`"txid":"`+strings.Repeat("ab", 32)+`","vout":0,"scriptPubKey":"51","amount":"x"`)), -3, "Invalid amount"},
	}
	runAuditErrors(t, cases)
}

// auditResult decodes a successful reply.
type auditResult struct {
	Hex      string `json:"hex"`
	Complete bool   `json:"complete"`
	Errors   []struct {
		Txid      string   `json:"txid"`
		Vout      uint32   `json:"vout"`
		Witness   []string `json:"witness"`
		ScriptSig string   `json:"scriptSig"`
		Sequence  uint32   `json:"sequence"`
		Error     string   `json:"error"`
	} `json:"errors"`
}

// auditOK sends a call that must succeed and returns its result.
func auditOK(t *testing.T, s *rpc.Server, params string) auditResult {
	t.Helper()
	got := auditCall(t, s, params)
	if got.Error != nil {
		t.Fatalf("error %d %q", got.Error.Code, got.Error.Message)
	}
	var r auditResult
	if err := json.Unmarshal(got.Result, &r); err != nil {
		t.Fatalf("result %s: %v", got.Result, err)
	}
	return r
}

// TestAuditSignAcceptedValues checks the values d.1 accepts: amounts as
// numbers and strings within the rules, vout -0, upper-case hex, null
// prevtxs and sighash, every sighash string, unknown members, and entries
// for outpoints the tx does not spend.
func TestAuditSignAcceptedValues(t *testing.T) {
	s := auditSignServer(t)
	keys := "[" + aq(auditWIF) + "]"
	accepted := []struct{ name, params string }{
		{"amount-zero", aParams(aq(auditTx), keys, "["+aWithAmount(`0`)+"]")},
		{"amount-minus-zero", aParams(aq(auditTx), keys, "["+aWithAmount(`-0`)+"]")},
		{"amount-string", aParams(aq(auditTx), keys, "["+aWithAmount(`"0.5"`)+"]")},
		{"amount-integer-string", aParams(aq(auditTx), keys, "["+aWithAmount(`"3"`)+"]")},
		{"amount-one-satoshi", aParams(aq(auditTx), keys, "["+aWithAmount(`0.00000001`)+"]")},
		{"amount-exponent", aParams(aq(auditTx), keys, "["+aWithAmount(`5E-1`)+"]")},
		{"amount-exponent-string", aParams(aq(auditTx), keys, "["+aWithAmount(`"1e-8"`)+"]")},
		{"amount-trailing-zeros", aParams(aq(auditTx), keys, "["+aWithAmount(`0.5000000000000`)+"]")},
		{"amount-max-minus-satoshi", aParams(aq(auditTx), keys, "["+aWithAmount(`20999999.99999999`)+"]")},
		{"vout-minus-zero", aParams(aq(auditTx), keys, "["+aWithVout(`-0`)+"]")},
		{"txid-upper", aParams(aq(auditTx), keys, "["+aWithTxid(aq(strings.ToUpper(auditTxid)))+"]")},
		{"spk-upper", aParams(aq(auditTx), keys, "["+aWithSPK(aq(strings.ToUpper(auditSPK)))+"]")},
		{"tx-upper", aParams(aq(strings.ToUpper(auditTx)), keys, "["+auditGoodPrev+"]")},
		{"unknown-members", aParams(aq(auditTx), keys, "["+auditPrev(`"txid":"`+auditTxid+`","vout":0,"scriptPubKey":"`+auditSPK+`","amount":0.5,"foo":[1],"redeemScript":"zz","witnessScript":7`)+"]")},
		{"unused-entries", aParams(aq(auditTx), keys, "["+auditGoodPrev+","+auditPrev(`"txid":"`+strings.Repeat("ab", 32)+`","vout":2147483647,"scriptPubKey":"51"`)+"]")},
		{"same-script-twice", aParams(aq(auditTx), keys, "["+aWithAmount(`1`)+","+auditGoodPrev+"]")},
		{"sighash-null", aParams(aq(auditTx), keys, "["+auditGoodPrev+"]", `null`)},
		{"prevtxs-null-sighash", aParams(aq(auditTx), `[]`, `null`, aq("ALL"))},
		{"duplicate-keys", aParams(aq(auditTx), "["+aq(auditWIF)+","+aq(auditWIF)+"]", "["+auditGoodPrev+"]")},
	}
	for _, sh := range []string{"DEFAULT", "ALL", "NONE", "SINGLE", "ALL|ANYONECANPAY", "NONE|ANYONECANPAY", "SINGLE|ANYONECANPAY"} {
		accepted = append(accepted, struct{ name, params string }{"sighash-" + sh, aParams(aq(auditTx), keys, "["+auditGoodPrev+"]", aq(sh))})
	}
	for _, c := range accepted {
		t.Run(c.name, func(t *testing.T) {
			r := auditOK(t, s, c.params)
			if strings.ToLower(r.Hex) != r.Hex {
				t.Fatalf("hex %s is not lower case", r.Hex)
			}
			if c.name == "prevtxs-null-sighash" {
				if r.Complete || len(r.Errors) != 1 || r.Errors[0].Error != "Input not found or already spent" {
					t.Fatalf("got %+v", r)
				}
				return
			}
			if !r.Complete || r.Errors != nil {
				t.Fatalf("not complete: %+v", r)
			}
		})
	}
}

// TestAuditSignResultShape checks d.4: key order hex, complete, errors;
// errors omitted when empty; each entry's key order and values, with an
// untouched input's scriptSig and witness; `[]` for an empty witness.
func TestAuditSignResultShape(t *testing.T) {
	s := auditSignServer(t)
	// Complete: exactly two keys, in order.
	raw := auditRaw(t, s, aParams(aq(auditTx), "["+aq(auditWIF)+"]", "["+auditGoodPrev+"]"))
	if !bytes.Contains(raw, []byte(`"result":{"hex":"02000000000101c61f9b`)) ||
		!bytes.Contains(raw, []byte(`,"complete":true}`)) || bytes.Contains(raw, []byte(`"errors"`)) {
		t.Fatalf("complete reply %s", raw)
	}

	// An input with an existing scriptSig and an unknown coin: the entry
	// shows it unchanged (sequence 0xfffffffd = 4294967293).
	tx := auditTx[:82] + "03" + "515253" + auditTx[84:]
	raw = auditRaw(t, s, aParams(aq(tx), `[]`))
	want := `"result":{"hex":"` + tx + `","complete":false,"errors":[{"txid":"` + auditTxid +
		`","vout":0,"witness":[],"scriptSig":"515253","sequence":4294967293,"error":"Input not found or already spent"}]}`
	if !bytes.Contains(raw, []byte(want)) {
		t.Fatalf("reply\n got %s\nwant %s", raw, want)
	}

	// An input with a witness (an invalid one) and an unknown coin: the
	// witness items, the empty one as "", are listed and kept in the hex.
	wtx := "02000000000101" + auditTx[10:len(auditTx)-8] + "03" + "00" + "0201ff" + "01aa" + "00000000"
	raw = auditRaw(t, s, aParams(aq(wtx), `[]`))
	want = `"result":{"hex":"` + wtx + `","complete":false,"errors":[{"txid":"` + auditTxid +
		`","vout":0,"witness":["","01ff","aa"],"scriptSig":"","sequence":4294967293,"error":"Input not found or already spent"}]}`
	if !bytes.Contains(raw, []byte(want)) {
		t.Fatalf("reply\n got %s\nwant %s", raw, want)
	}
}

// auditHex is a helper for readable failures.
func auditHex(b []byte) string { return hex.EncodeToString(b) }

// auditKey is one key of the corpus key set.
type auditKey struct {
	WIF        string `json:"wif"`
	PubKey     string `json:"pubkey"`
	XOnly      string `json:"xonly"`
	Compressed bool   `json:"compressed"`
}

// auditKeySet loads the corpus keys (k01..k24 compressed, u01..u03
// uncompressed) and the BIP 86 tweaked WIF of k17 with its output key.
func auditKeySet(t *testing.T) (keys map[string]auditKey, tweakedWIF, tweakedXOnly string) {
	t.Helper()
	var f struct {
		Keys struct {
			WIF map[string]auditKey `json:"wif"`
		} `json:"keys"`
		Derived map[string]struct {
			WIF    string `json:"wif"`
			Output string `json:"output_xonly"`
		} `json:"derived_keys"`
	}
	testvec.Load(t, "core_rpc/stateless.json", &f)
	d := f.Derived["k17_bip86_tweaked"]
	return f.Keys.WIF, d.WIF, d.Output
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// auditScripts builds output scripts with btcd's script builder.
func auditP2PK(pub []byte) []byte {
	s, _ := txscript.NewScriptBuilder().AddData(pub).AddOp(txscript.OP_CHECKSIG).Script()
	return s
}

func auditP2PKH(pub []byte) []byte {
	s, _ := txscript.NewScriptBuilder().AddOp(txscript.OP_DUP).AddOp(txscript.OP_HASH160).
		AddData(btcaddr.Hash160(pub)).AddOp(txscript.OP_EQUALVERIFY).AddOp(txscript.OP_CHECKSIG).Script()
	return s
}

func auditMulti(m int, pubs ...[]byte) []byte {
	b := txscript.NewScriptBuilder().AddInt64(int64(m))
	for _, p := range pubs {
		b.AddData(p)
	}
	s, _ := b.AddInt64(int64(len(pubs))).AddOp(txscript.OP_CHECKMULTISIG).Script()
	return s
}

func auditP2SHOf(rs []byte) []byte {
	s, _ := txscript.NewScriptBuilder().AddOp(txscript.OP_HASH160).AddData(btcaddr.Hash160(rs)).
		AddOp(txscript.OP_EQUAL).Script()
	return s
}

func auditP2WPKH(pub []byte) []byte {
	return append([]byte{0x00, 0x14}, btcaddr.Hash160(pub)...)
}

func auditP2WSHOf(ws []byte) []byte {
	h := sha256.Sum256(ws)
	return append([]byte{0x00, 0x20}, h[:]...)
}

// auditSpend describes one kind of output being spent: its script, the
// extra prevtxs members, the keys that sign it, and the expected layout of
// scriptSig and witness once signed ("sig", "pub", "0" for an empty push,
// "rs" for the redeemScript, "ws" for the witnessScript, "tsig" for a
// Schnorr signature).
type auditSpend struct {
	name      string
	spk       []byte
	extra     string
	keys      []string
	scriptSig string
	witness   string
	segwit    bool
}

func auditSpends(t *testing.T) []auditSpend {
	keys, tweaked, tweakedX := auditKeySet(t)
	pub := func(n string) []byte { return mustHex(t, keys[n].PubKey) }
	wif := func(n string) string { return keys[n].WIF }
	ms23 := auditMulti(2, pub("k01"), pub("k02"), pub("k03"))
	ms12 := auditMulti(1, pub("k04"), pub("k05"))
	pkhIn := auditP2PKH(pub("k07"))
	pkIn := auditP2PK(pub("k08"))
	wpkh := auditP2WPKH(pub("k09"))
	wsPK := auditP2PK(pub("k10"))
	wsPKH := auditP2PKH(pub("k11"))
	return []auditSpend{
		{name: "p2pk", spk: auditP2PK(pub("k12")), keys: []string{wif("k12")}, scriptSig: "sig"},
		{name: "p2pk-uncompressed", spk: auditP2PK(pub("u01")), keys: []string{wif("u01")}, scriptSig: "sig"},
		{name: "p2pkh", spk: auditP2PKH(pub("k13")), keys: []string{wif("k13")}, scriptSig: "sig pub"},
		{name: "p2pkh-uncompressed", spk: auditP2PKH(pub("u02")), keys: []string{wif("u02")}, scriptSig: "sig pub"},
		{name: "bare-multisig-2of3", spk: ms23, keys: []string{wif("k01"), wif("k03")}, scriptSig: "0 sig sig"},
		{name: "bare-multisig-2of3-all-keys", spk: ms23, keys: []string{wif("k03"), wif("k02"), wif("k01")}, scriptSig: "0 sig sig"},
		{name: "bare-multisig-1of2", spk: ms12, keys: []string{wif("k05")}, scriptSig: "0 sig"},
		{name: "p2sh-multisig", spk: auditP2SHOf(ms23), extra: `"redeemScript":"` + auditHex(ms23) + `"`,
			keys: []string{wif("k02"), wif("k03")}, scriptSig: "0 sig sig rs"},
		{name: "p2sh-p2pkh", spk: auditP2SHOf(pkhIn), extra: `"redeemScript":"` + auditHex(pkhIn) + `"`,
			keys: []string{wif("k07")}, scriptSig: "sig pub rs"},
		{name: "p2sh-p2pk", spk: auditP2SHOf(pkIn), extra: `"redeemScript":"` + auditHex(pkIn) + `"`,
			keys: []string{wif("k08")}, scriptSig: "sig rs"},
		// The P2SH script given as witnessScript is accepted for plain P2SH.
		{name: "p2sh-p2pk-via-witnessscript", spk: auditP2SHOf(pkIn), extra: `"witnessScript":"` + auditHex(pkIn) + `"`,
			keys: []string{wif("k08")}, scriptSig: "sig rs"},
		{name: "p2wpkh", spk: wpkh, keys: []string{wif("k09")}, witness: "sig pub", segwit: true},
		{name: "p2sh-p2wpkh", spk: auditP2SHOf(wpkh), extra: `"redeemScript":"` + auditHex(wpkh) + `"`,
			keys: []string{wif("k09")}, scriptSig: "rs", witness: "sig pub", segwit: true},
		{name: "p2wsh-pk", spk: auditP2WSHOf(wsPK), extra: `"witnessScript":"` + auditHex(wsPK) + `"`,
			keys: []string{wif("k10")}, witness: "sig ws", segwit: true},
		{name: "p2wsh-pkh", spk: auditP2WSHOf(wsPKH), extra: `"witnessScript":"` + auditHex(wsPKH) + `"`,
			keys: []string{wif("k11")}, witness: "sig pub ws", segwit: true},
		{name: "p2wsh-pk-via-redeemscript", spk: auditP2WSHOf(wsPK), extra: `"redeemScript":"` + auditHex(wsPK) + `"`,
			keys: []string{wif("k10")}, witness: "sig ws", segwit: true},
		{name: "p2wsh-multisig", spk: auditP2WSHOf(ms23), extra: `"witnessScript":"` + auditHex(ms23) + `"`,
			keys: []string{wif("k01"), wif("k02")}, witness: "0 sig sig ws", segwit: true},
		{name: "p2sh-p2wsh-multisig", spk: auditP2SHOf(auditP2WSHOf(ms23)),
			extra:     `"witnessScript":"` + auditHex(ms23) + `","redeemScript":"` + auditHex(auditP2WSHOf(ms23)) + `"`,
			keys:      []string{wif("k01"), wif("k03")},
			scriptSig: "rs", witness: "0 sig sig ws", segwit: true},
		{name: "p2sh-p2wsh-multisig-same-strings", spk: auditP2SHOf(auditP2WSHOf(ms23)),
			extra:     `"witnessScript":"` + auditHex(ms23) + `","redeemScript":"` + auditHex(ms23) + `"`,
			keys:      []string{wif("k02"), wif("k03")},
			scriptSig: "rs", witness: "0 sig sig ws", segwit: true},
		{name: "p2sh-p2wsh-multisig-redeemscript-only", spk: auditP2SHOf(auditP2WSHOf(ms23)),
			extra:     `"redeemScript":"` + auditHex(ms23) + `"`,
			keys:      []string{wif("k01"), wif("k02")},
			scriptSig: "rs", witness: "0 sig sig ws", segwit: true},
		{name: "p2tr-bip86-tweaked", spk: append([]byte{0x51, 0x20}, mustHex(t, tweakedX)...),
			keys: []string{tweaked}, witness: "tsig", segwit: true},
		{name: "p2tr-rawtr", spk: append([]byte{0x51, 0x20}, mustHex(t, keys["k14"].XOnly)...),
			keys: []string{wif("k14")}, witness: "tsig", segwit: true},
	}
}

// auditSighashes are the accepted sighash strings and their hash-type
// byte for ECDSA ("" is the argument left out).
var auditSighashes = []struct {
	name string
	ht   byte
}{
	{"", 0x01}, {"DEFAULT", 0x01}, {"ALL", 0x01}, {"NONE", 0x02}, {"SINGLE", 0x03},
	{"ALL|ANYONECANPAY", 0x81}, {"NONE|ANYONECANPAY", 0x82}, {"SINGLE|ANYONECANPAY", 0x83},
}

// auditTxFor builds an unsigned version-2 transaction spending the given
// outpoints, with two outputs.
func auditTxFor(t *testing.T, ops []wire.OutPoint, seq uint32) *wire.MsgTx {
	tx := wire.NewMsgTx(2)
	for _, op := range ops {
		tx.AddTxIn(&wire.TxIn{PreviousOutPoint: op, Sequence: seq})
	}
	tx.AddTxOut(&wire.TxOut{Value: 99_000_000, PkScript: mustHex(t, "0014089910b979e403d769d24174b9a22a3bf73e3b3c")})
	tx.AddTxOut(&wire.TxOut{Value: 12_345, PkScript: mustHex(t, "76a9147db8c7e34bb1a618521a5a5c23d80880aaa028f488ac")})
	return tx
}

func auditTxHex(tx *wire.MsgTx) string {
	var b bytes.Buffer
	_ = tx.Serialize(&b)
	return hex.EncodeToString(b.Bytes())
}

func auditOutPoint(label string, n uint32) wire.OutPoint {
	return wire.OutPoint{Hash: chainhash.HashH([]byte("audit:" + label)), Index: n}
}

func auditPrevFor(op wire.OutPoint, spk []byte, amount, extra string) string {
	m := `"txid":"` + op.Hash.String() + `","vout":` + fmt.Sprint(op.Index) + `,"scriptPubKey":"` + auditHex(spk) + `"`
	if amount != "" {
		m += `,"amount":` + amount
	}
	if extra != "" {
		m += "," + extra
	}
	return "{" + m + "}"
}

// auditVerify runs btcd's script engine over every input of the signed
// transaction under the standard flags.
func auditVerify(t *testing.T, tx *wire.MsgTx, spks [][]byte, amounts []int64) {
	t.Helper()
	fetcher := txscript.NewMultiPrevOutFetcher(nil)
	for i, in := range tx.TxIn {
		fetcher.AddPrevOut(in.PreviousOutPoint, &wire.TxOut{Value: amounts[i], PkScript: spks[i]})
	}
	hashes := txscript.NewTxSigHashes(tx, fetcher)
	for i := range tx.TxIn {
		vm, err := txscript.NewEngine(spks[i], tx, i, txscript.StandardVerifyFlags, nil, hashes, amounts[i], fetcher)
		if err == nil {
			err = vm.Execute()
		}
		if err != nil {
			t.Fatalf("input %d does not verify: %v", i, err)
		}
	}
}

// auditLayout names the items of a stack as auditSpend does and checks the
// signatures' form: ECDSA low-R (at most 70 bytes of DER), low-S, with the
// expected hash-type byte; Schnorr 64 bytes for DEFAULT, else 65 with the
// byte.
func auditLayout(t *testing.T, items [][]byte, ht byte, sighash string, spk, rs, ws []byte) string {
	t.Helper()
	var names []string
	for _, it := range items {
		switch {
		case len(it) == 0:
			names = append(names, "0")
		case rs != nil && bytes.Equal(it, rs):
			names = append(names, "rs")
		case ws != nil && bytes.Equal(it, ws):
			names = append(names, "ws")
		case (len(it) == 33 && (it[0] == 2 || it[0] == 3)) || (len(it) == 65 && it[0] == 4):
			names = append(names, "pub")
		case len(it) == 64 || len(it) == 65:
			names = append(names, "tsig")
			want := 64
			if sighash != "" && sighash != "DEFAULT" {
				want = 65
			}
			if len(it) != want || (want == 65 && it[64] != ht) {
				t.Fatalf("schnorr signature %x for %q", it, sighash)
			}
		case it[0] == 0x30:
			names = append(names, "sig")
			der := it[:len(it)-1]
			if it[len(it)-1] != ht {
				t.Fatalf("hash type %#x, want %#x", it[len(it)-1], ht)
			}
			if len(der) > 70 || der[3] > 32 || der[4] >= 0x80 {
				t.Fatalf("signature %x is not low-R", it)
			}
			sig, err := ecdsa.ParseDERSignature(der)
			if err != nil {
				t.Fatal(err)
			}
			s := sig.S()
			if s.IsOverHalfOrder() {
				t.Fatalf("signature %x is not low-S", it)
			}
		default:
			names = append(names, fmt.Sprintf("?%x", it))
		}
	}
	return strings.Join(names, " ")
}

// TestAuditSignScriptTypes signs every script type of d.2 with every
// sighash string and checks the result: complete, no errors, valid under
// btcd's engine, the layout of scriptSig and witness, the signatures' form,
// the legacy serialization when no input has a witness, and determinism.
func TestAuditSignScriptTypes(t *testing.T) {
	s := auditSignServer(t)
	for _, sp := range auditSpends(t) {
		for _, sh := range auditSighashes {
			t.Run(sp.name+"/"+sh.name, func(t *testing.T) {
				op := auditOutPoint(sp.name, 1)
				tx := auditTxFor(t, []wire.OutPoint{op}, 0xfffffffd)
				keys, _ := json.Marshal(sp.keys)
				args := []string{aq(auditTxHex(tx)), string(keys), "[" + auditPrevFor(op, sp.spk, "1.25", sp.extra) + "]"}
				if sh.name != "" {
					args = append(args, aq(sh.name))
				}
				r := auditOK(t, s, aParams(args...))
				if !r.Complete || r.Errors != nil {
					t.Fatalf("not complete: %+v", r)
				}
				again := auditOK(t, s, aParams(args...))
				if again.Hex != r.Hex {
					t.Fatalf("not deterministic:\n%s\n%s", r.Hex, again.Hex)
				}
				signed := wire.NewMsgTx(2)
				if err := signed.Deserialize(bytes.NewReader(mustHex(t, r.Hex))); err != nil {
					t.Fatal(err)
				}
				if !sp.segwit && strings.HasPrefix(r.Hex, "020000000001") {
					t.Fatalf("segwit serialization without a witness: %s", r.Hex)
				}
				auditVerify(t, signed, [][]byte{sp.spk}, []int64{125_000_000})
				in := signed.TxIn[0]
				var rs, ws []byte
				if sp.spk[0] == txscript.OP_HASH160 {
					pushes, _ := txscript.PushedData(in.SignatureScript)
					rs = pushes[len(pushes)-1]
				}
				if len(in.Witness) > 0 && len(sp.spk) == 34 && sp.spk[0] == 0 ||
					rs != nil && len(rs) == 34 && rs[0] == 0 {
					ws = in.Witness[len(in.Witness)-1]
				}
				pushes, err := txscript.PushedData(in.SignatureScript)
				if err != nil {
					t.Fatal(err)
				}
				if got := auditLayout(t, pushes, sh.ht, sh.name, sp.spk, rs, ws); got != sp.scriptSig {
					t.Fatalf("scriptSig layout %q, want %q (%x)", got, sp.scriptSig, in.SignatureScript)
				}
				if got := auditLayout(t, in.Witness, sh.ht, sh.name, sp.spk, rs, ws); got != sp.witness {
					t.Fatalf("witness layout %q, want %q", got, sp.witness)
				}
				// Re-signing a complete transaction returns it unchanged:
				// with the same arguments, and without keys under another
				// sighash type. ECDSA inputs already verify before signing
				// (DataFromTransaction), so keys and another type change
				// nothing either; a taproot key-path signature cannot be
				// checked there (no precomputed data), so with keys it is
				// made again under the requested type.
				redo := append([]string(nil), args...)
				redo[0] = aq(r.Hex)
				if got := auditOK(t, s, aParams(redo...)); got.Hex != r.Hex || !got.Complete {
					t.Fatalf("re-signing changed the tx:\n%s\n%+v", r.Hex, got)
				}
				if got := auditOK(t, s, aParams(aq(r.Hex), `[]`, args[2], aq("NONE"))); got.Hex != r.Hex || !got.Complete {
					t.Fatalf("re-signing without keys changed the tx:\n%s\n%+v", r.Hex, got)
				}
				got := auditOK(t, s, aParams(aq(r.Hex), string(keys), args[2], aq("NONE")))
				taproot := len(sp.spk) == 34 && sp.spk[0] == txscript.OP_1
				if !got.Complete || (got.Hex != r.Hex) != (taproot && sh.name != "NONE") {
					t.Fatalf("re-signing with keys under NONE:\n%s\n%+v", r.Hex, got)
				}
				if taproot && !strings.Contains(got.Hex, "0141") {
					t.Fatalf("taproot input not re-signed under NONE: %s", got.Hex)
				}
			})
		}
	}
}

// auditPush is the canonical push of data (btcd's builder).
func auditPush(items ...[]byte) string {
	b := txscript.NewScriptBuilder()
	for _, it := range items {
		b.AddData(it)
	}
	s, _ := b.Script()
	return hex.EncodeToString(s)
}

const (
	msgStack    = "Unable to sign input, invalid stack size (possibly missing key)"
	msgNullFail = "CHECK(MULTI)SIG failing with non-zero signature (possibly need more signatures)"
	msgMismatch = "Witness program hash mismatch"
	msgEmptyWit = "Witness program was passed an empty witness"
	msgEvalFail = "Script evaluated without error but finished with a false/empty top stack element"
	msgNotFound = "Input not found or already spent"
)

// TestAuditSignInputErrors checks d.2/d.3 for one input that cannot be
// (fully) signed: the error text, and the scriptSig and witness written
// (derived from the script alone, as no signature is involved).
func TestAuditSignInputErrors(t *testing.T) {
	s := auditSignServer(t)
	keys, _, _ := auditKeySet(t)
	pub := func(n string) []byte { return mustHex(t, keys[n].PubKey) }
	wif := func(n string) string { return keys[n].WIF }
	ms23 := auditMulti(2, pub("k01"), pub("k02"), pub("k03"))
	ms12 := auditMulti(1, pub("k04"), pub("k05"))
	pkh := auditP2PKH(pub("k07"))
	pk := auditP2PK(pub("k08"))
	wpkh := auditP2WPKH(pub("k09"))
	wpkhU := auditP2WPKH(pub("u03"))
	wsPKU := auditP2PK(pub("u01"))
	p2wshMS := auditP2WSHOf(ms23)
	unknownV2 := append([]byte{0x52, 0x20}, bytes.Repeat([]byte{7}, 32)...)
	v0Wrong := append([]byte{0x00, 0x15}, bytes.Repeat([]byte{7}, 21)...)
	taproot := append([]byte{0x51, 0x20}, mustHex(t, keys["k15"].XOnly)...)
	rsExtra := func(b []byte) string { return `"redeemScript":"` + auditHex(b) + `"` }
	wsExtra := func(b []byte) string { return `"witnessScript":"` + auditHex(b) + `"` }

	cases := []struct {
		name      string
		spk       []byte
		extra     string
		keys      []string
		scriptSig string
		witness   []string
		err       string // "" = complete
	}{
		{name: "p2pk-no-key", spk: auditP2PK(pub("k12")), err: msgStack},
		{name: "p2pk-wrong-key", spk: auditP2PK(pub("k12")), keys: []string{wif("k13")}, err: msgStack},
		{name: "p2pkh-no-key", spk: auditP2PKH(pub("k13")), err: msgStack},
		// A compressed WIF does not sign for the uncompressed key's hash,
		// nor the other way round.
		{name: "p2pkh-uncompressed-with-compressed-wif", spk: auditP2PKH(pub("u02")), keys: []string{wif("k13")}, err: msgStack},
		{name: "p2pk-uncompressed-other-key", spk: auditP2PK(pub("u02")), keys: []string{wif("u01")}, err: msgStack},
		{name: "bare-2of3-no-key", spk: ms23, scriptSig: "0000", err: msgStack},
		{name: "bare-1of2-no-key", spk: ms12, scriptSig: "0000", err: msgEvalFail},
		{name: "p2sh-multisig-no-key", spk: auditP2SHOf(ms23), extra: rsExtra(ms23),
			scriptSig: "0000" + auditPush(ms23), err: msgStack},
		{name: "p2sh-p2pkh-no-key", spk: auditP2SHOf(pkh), extra: rsExtra(pkh), scriptSig: auditPush(pkh), err: msgStack},
		{name: "p2sh-p2pk-no-key", spk: auditP2SHOf(pk), extra: rsExtra(pk), scriptSig: auditPush(pk), err: msgStack},
		{name: "p2wpkh-no-key", spk: wpkh, extra: `"amount":1`, err: msgMismatch},
		{name: "p2wpkh-no-key-no-amount", spk: wpkh, err: msgMismatch},
		{name: "p2wpkh-wrong-key", spk: wpkh, extra: `"amount":1`, keys: []string{wif("k10")}, err: msgMismatch},
		{name: "p2wpkh-uncompressed-refused", spk: wpkhU, extra: `"amount":1`, keys: []string{wif("u03")}, err: msgMismatch},
		{name: "p2sh-p2wpkh-no-key", spk: auditP2SHOf(wpkh), extra: rsExtra(wpkh) + `,"amount":1`,
			scriptSig: auditPush(wpkh), err: msgMismatch},
		{name: "p2sh-p2wpkh-no-key-no-amount", spk: auditP2SHOf(wpkh), extra: rsExtra(wpkh),
			scriptSig: auditPush(wpkh), err: msgMismatch},
		{name: "p2wsh-multisig-no-key", spk: p2wshMS, extra: wsExtra(ms23) + `,"amount":1`,
			witness: []string{"", "", auditHex(ms23)}, err: msgStack},
		{name: "p2wsh-pk-no-key", spk: auditP2WSHOf(pk), extra: wsExtra(pk) + `,"amount":1`,
			witness: []string{auditHex(pk)}, err: msgStack},
		{name: "p2wsh-pkh-no-key", spk: auditP2WSHOf(pkh), extra: wsExtra(pkh) + `,"amount":1`,
			witness: []string{auditHex(pkh)}, err: msgStack},
		// Uncompressed keys are refused inside P2WSH too.
		{name: "p2wsh-pk-uncompressed-refused", spk: auditP2WSHOf(wsPKU), extra: wsExtra(wsPKU) + `,"amount":1`,
			keys: []string{wif("u01")}, witness: []string{auditHex(wsPKU)}, err: msgStack},
		{name: "p2sh-p2wsh-multisig-no-key", spk: auditP2SHOf(p2wshMS), extra: wsExtra(ms23) + `,"amount":1`,
			scriptSig: auditPush(p2wshMS), witness: []string{"", "", auditHex(ms23)}, err: msgStack},
		{name: "p2tr-no-key", spk: taproot, extra: `"amount":1`, err: msgEmptyWit},
		{name: "p2tr-no-key-no-amount", spk: taproot, err: msgEmptyWit},
		{name: "p2tr-other-key", spk: taproot, extra: `"amount":1`, keys: []string{wif("k16")}, err: msgEmptyWit},
		{name: "p2a", spk: []byte{0x51, 0x02, 0x4e, 0x73}, keys: []string{wif("k01")}},
		{name: "p2a-no-amount-no-key", spk: []byte{0x51, 0x02, 0x4e, 0x73}},
		{name: "op-true", spk: []byte{txscript.OP_TRUE}},
		{name: "op-return", spk: []byte{txscript.OP_RETURN, 0x01, 0x01}, keys: []string{wif("k01")}, err: "OP_RETURN was encountered"},
		{name: "bare-checksig", spk: []byte{txscript.OP_CHECKSIG}, err: msgStack},
		{name: "witness-v2", spk: unknownV2, extra: `"amount":1`, err: "Witness version reserved for soft-fork upgrades"},
		{name: "witness-v0-wrong-length", spk: v0Wrong, extra: `"amount":1`, err: "Witness program has incorrect length"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			op := auditOutPoint(c.name, 0)
			tx := auditTxFor(t, []wire.OutPoint{op}, 0xfffffffd)
			ks, _ := json.Marshal(c.keys)
			if c.keys == nil {
				ks = []byte(`[]`)
			}
			txHex := auditTxHex(tx)
			r := auditOK(t, s, aParams(aq(txHex), string(ks), "["+auditPrevFor(op, c.spk, "", c.extra)+"]"))
			if c.err == "" {
				if !r.Complete || r.Errors != nil || r.Hex != txHex {
					t.Fatalf("got %+v, want complete and unchanged", r)
				}
				return
			}
			if r.Complete || len(r.Errors) != 1 {
				t.Fatalf("got %+v", r)
			}
			e := r.Errors[0]
			w := c.witness
			if w == nil {
				w = []string{}
			}
			if e.Error != c.err || e.ScriptSig != c.scriptSig || !equalStrings(e.Witness, w) ||
				e.Txid != op.Hash.String() || e.Vout != 0 || e.Sequence != 0xfffffffd {
				t.Fatalf("entry %+v\nwant error %q scriptSig %q witness %q", e, c.err, c.scriptSig, w)
			}
			// The hex carries the same scriptSig and witness.
			got := wire.NewMsgTx(2)
			if err := got.Deserialize(bytes.NewReader(mustHex(t, r.Hex))); err != nil {
				t.Fatal(err)
			}
			if auditHex(got.TxIn[0].SignatureScript) != c.scriptSig || len(got.TxIn[0].Witness) != len(w) {
				t.Fatalf("hex %s does not match the entry", r.Hex)
			}
			if len(w) == 0 && strings.HasPrefix(r.Hex, "020000000001") {
				t.Fatalf("segwit serialization without a witness: %s", r.Hex)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestAuditSignMissingAmount checks d.2 step 6: the whole call fails with
// -3 when an input ends with a witness and its amount is the MAX_MONEY
// sentinel (absent or given as 21000000), also when an earlier input has
// an error and when no signature was made (P2WSH with its witnessScript).
func TestAuditSignMissingAmount(t *testing.T) {
	s := auditSignServer(t)
	keys, tweaked, tweakedX := auditKeySet(t)
	pub := func(n string) []byte { return mustHex(t, keys[n].PubKey) }
	ms23 := auditMulti(2, pub("k01"), pub("k02"), pub("k03"))
	wpkh := auditP2WPKH(pub("k09"))
	p2wshMS := auditP2WSHOf(ms23)
	tr := append([]byte{0x51, 0x20}, mustHex(t, tweakedX)...)
	msg := func(spk []byte) string {
		h := auditHex(spk)
		if len(h) > 30 {
			h = h[:30]
		}
		return "Missing amount for CTxOut(nValue=21000000.00000000, scriptPubKey=" + h + ")"
	}
	one := func(label string, spk []byte, extra string, ks ...string) string {
		op := auditOutPoint(label, 0)
		k, _ := json.Marshal(ks)
		if ks == nil {
			k = []byte(`[]`)
		}
		return aParams(aq(auditTxHex(auditTxFor(t, []wire.OutPoint{op}, 0xfffffffd))), string(k), "["+auditPrevFor(op, spk, "", extra)+"]")
	}
	cases := []auditErrCase{
		{"p2wpkh", one("ma1", wpkh, "", keys["k09"].WIF), -3, msg(wpkh)},
		{"p2wpkh-explicit-max", one("ma2", wpkh, `"amount":21000000`, keys["k09"].WIF), -3, msg(wpkh)},
		{"p2wpkh-explicit-max-string", one("ma3", wpkh, `"amount":"21000000.00000000"`, keys["k09"].WIF), -3, msg(wpkh)},
		{"p2sh-p2wpkh", one("ma4", auditP2SHOf(wpkh), `"redeemScript":"`+auditHex(wpkh)+`"`, keys["k09"].WIF), -3, msg(auditP2SHOf(wpkh))},
		{"p2wsh-multisig-one-key", one("ma5", p2wshMS, `"witnessScript":"`+auditHex(ms23)+`"`, keys["k01"].WIF), -3, msg(p2wshMS)},
		// The witnessScript alone makes a witness.
		{"p2wsh-multisig-no-key", one("ma6", p2wshMS, `"witnessScript":"`+auditHex(ms23)+`"`), -3, msg(p2wshMS)},
		{"p2tr", one("ma7", tr, "", tweaked), -3, msg(tr)},
	}
	// An earlier input with an error does not prevent the exception.
	op0, op1 := auditOutPoint("ma8a", 0), auditOutPoint("ma8b", 0)
	two := aParams(aq(auditTxHex(auditTxFor(t, []wire.OutPoint{op0, op1}, 0xfffffffd))), "["+aq(keys["k09"].WIF)+"]",
		"["+auditPrevFor(op0, auditP2PKH(pub("k20")), "", "")+","+auditPrevFor(op1, wpkh, "", "")+"]")
	cases = append(cases, auditErrCase{"after-failed-input", two, -3, msg(wpkh)})
	runAuditErrors(t, cases)
	_ = s

	// A legacy input needs no amount.
	r := auditOK(t, s, one("ma9", auditP2PKH(pub("k13")), "", keys["k13"].WIF))
	if !r.Complete {
		t.Fatalf("legacy input without amount: %+v", r)
	}
}

// TestAuditSignPartialMultisig follows d.2's partial rules: one key of a
// 2-of-3 gives OP_0 <sig> OP_0 (plus the script), the same key again
// changes nothing, a second key completes it with the signatures in key
// order, and a corrupted signature is dropped.
func TestAuditSignPartialMultisig(t *testing.T) {
	s := auditSignServer(t)
	keys, _, _ := auditKeySet(t)
	pub := func(n string) []byte { return mustHex(t, keys[n].PubKey) }
	ms23 := auditMulti(2, pub("k01"), pub("k02"), pub("k03"))
	kinds := []struct {
		name  string
		spk   []byte
		extra string
	}{
		{"bare", ms23, ""},
		{"p2sh", auditP2SHOf(ms23), `"redeemScript":"` + auditHex(ms23) + `"`},
		{"p2wsh", auditP2WSHOf(ms23), `"witnessScript":"` + auditHex(ms23) + `"`},
		{"p2sh-p2wsh", auditP2SHOf(auditP2WSHOf(ms23)), `"witnessScript":"` + auditHex(ms23) + `"`},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			op := auditOutPoint("partial-"+k.name, 0)
			tx := auditTxFor(t, []wire.OutPoint{op}, 0xfffffffd)
			prev := "[" + auditPrevFor(op, k.spk, "2", k.extra) + "]"
			stackOf := func(h string) [][]byte {
				got := wire.NewMsgTx(2)
				if err := got.Deserialize(bytes.NewReader(mustHex(t, h))); err != nil {
					t.Fatal(err)
				}
				in := got.TxIn[0]
				if len(in.Witness) > 0 {
					return in.Witness[:len(in.Witness)-1]
				}
				p, _ := txscript.PushedData(in.SignatureScript)
				if k.name == "p2sh" {
					p = p[:len(p)-1]
				}
				return p
			}
			first := auditOK(t, s, aParams(aq(auditTxHex(tx)), "["+aq(keys["k03"].WIF)+"]", prev))
			st := stackOf(first.Hex)
			if first.Complete || len(first.Errors) != 1 || first.Errors[0].Error != msgNullFail ||
				len(st) != 3 || len(st[0]) != 0 || len(st[1]) == 0 || len(st[2]) != 0 {
				t.Fatalf("first signature: %+v", first)
			}
			again := auditOK(t, s, aParams(aq(first.Hex), "["+aq(keys["k03"].WIF)+"]", prev))
			if again.Hex != first.Hex || again.Complete || again.Errors[0].Error != msgNullFail {
				t.Fatalf("same key again changed the tx: %+v", again)
			}
			none := auditOK(t, s, aParams(aq(first.Hex), `[]`, prev))
			if none.Hex != first.Hex || none.Complete {
				t.Fatalf("no key changed the tx: %+v", none)
			}
			done := auditOK(t, s, aParams(aq(first.Hex), "["+aq(keys["k01"].WIF)+"]", prev))
			if !done.Complete || done.Errors != nil {
				t.Fatalf("second key: %+v", done)
			}
			st2 := stackOf(done.Hex)
			// Key order: k01's signature first, then k03's (kept).
			if len(st2) != 3 || len(st2[0]) != 0 || !bytes.Equal(st2[2], st[1]) {
				t.Fatalf("signatures not in key order: %x", st2)
			}
			signed := wire.NewMsgTx(2)
			_ = signed.Deserialize(bytes.NewReader(mustHex(t, done.Hex)))
			auditVerify(t, signed, [][]byte{k.spk}, []int64{200_000_000})

			// Corrupt the kept signature: it is dropped, and with no key
			// only the empty pushes (and scripts) remain.
			bad := strings.Replace(first.Hex, auditHex(st[1][10:20]), strings.Repeat("00", 10), 1)
			dropped := auditOK(t, s, aParams(aq(bad), `[]`, prev))
			st3 := stackOf(dropped.Hex)
			if dropped.Complete || len(st3) != 2 || len(st3[0]) != 0 || len(st3[1]) != 0 ||
				dropped.Errors[0].Error != msgStack {
				t.Fatalf("corrupted signature kept: %+v", dropped)
			}
		})
	}
}

// TestAuditSignSingleAndMixed checks SINGLE with more inputs than outputs
// (inputs without an output are not signed), an unknown input next to
// known ones, a stray witness on a legacy input (removed when signing),
// and that errors are listed in input order.
func TestAuditSignSingleAndMixed(t *testing.T) {
	s := auditSignServer(t)
	keys, tweaked, tweakedX := auditKeySet(t)
	pub := func(n string) []byte { return mustHex(t, keys[n].PubKey) }
	ops := []wire.OutPoint{auditOutPoint("mx0", 0), auditOutPoint("mx1", 1), auditOutPoint("mx2", 2), auditOutPoint("mx3", 3)}
	spks := [][]byte{auditP2PKH(pub("k13")), auditP2WPKH(pub("k09")), auditP2PKH(pub("k12")),
		append([]byte{0x51, 0x20}, mustHex(t, tweakedX)...)}
	ks := "[" + aq(keys["k13"].WIF) + "," + aq(keys["k09"].WIF) + "," + aq(keys["k12"].WIF) + "," + aq(tweaked) + "]"
	prevs := make([]string, len(ops))
	for i := range ops {
		prevs[i] = auditPrevFor(ops[i], spks[i], "0.75", "")
	}
	tx := auditTxFor(t, ops, 0xfffffffd) // two outputs
	for _, sh := range []string{"SINGLE", "SINGLE|ANYONECANPAY"} {
		r := auditOK(t, s, aParams(aq(auditTxHex(tx)), ks, "["+strings.Join(prevs, ",")+"]", aq(sh)))
		if r.Complete || len(r.Errors) != 2 || r.Errors[0].Error != msgStack || r.Errors[0].Vout != 2 ||
			r.Errors[1].Error != msgEmptyWit || r.Errors[1].Vout != 3 {
			t.Fatalf("%s: %+v", sh, r)
		}
	}

	// Input 2's coin unknown: taproot (input 3) cannot be signed either.
	r := auditOK(t, s, aParams(aq(auditTxHex(tx)), ks, "["+prevs[0]+","+prevs[1]+","+prevs[3]+"]"))
	if r.Complete || len(r.Errors) != 2 || r.Errors[0].Error != msgNotFound || r.Errors[0].Vout != 2 ||
		r.Errors[1].Error != msgEmptyWit {
		t.Fatalf("unknown input: %+v", r)
	}

	// A stray witness on a legacy input is removed when it is signed.
	one := auditTxFor(t, ops[:1], 0xfffffffd)
	one.TxIn[0].Witness = wire.TxWitness{{0x01, 0x02}}
	r = auditOK(t, s, aParams(aq(auditTxHex(one)), "["+aq(keys["k13"].WIF)+"]", "["+prevs[0]+"]"))
	if !r.Complete || strings.HasPrefix(r.Hex, "020000000001") {
		t.Fatalf("stray witness kept: %+v", r)
	}
}

// TestAuditSignLargeInputs checks that large but valid calls work and that
// oversized lengths inside the transaction are decode failures.
func TestAuditSignLargeInputs(t *testing.T) {
	s := auditSignServer(t)
	keys, _, _ := auditKeySet(t)
	pub := mustHex(t, keys["k13"].PubKey)
	const n = 300
	ops := make([]wire.OutPoint, n)
	prevs := make([]string, n)
	for i := range ops {
		ops[i] = auditOutPoint("big", uint32(i))
		prevs[i] = auditPrevFor(ops[i], auditP2PKH(pub), "", "")
	}
	r := auditOK(t, s, aParams(aq(auditTxHex(auditTxFor(t, ops, 0xffffffff))), "["+aq(keys["k13"].WIF)+"]", "["+strings.Join(prevs, ",")+"]"))
	if !r.Complete {
		t.Fatalf("%d inputs: %+v", n, r.Errors[:1])
	}
	// A script length of 0x02000001 (above MAX_SIZE) and one claiming
	// 4 GiB: decode failures, not allocations.
	for _, size := range []string{"fe01000002", "ff0000000001000000"} {
		h := auditTx[:82] + size + auditTx[84:]
		runAuditErrors(t, []auditErrCase{{"length-" + size, aParams(aq(h), `[]`), -22, txDecodeMsg}})
	}
}

// TestAuditSignNamedAndDuplicates checks named parameters (a.8) and a
// prevtxs member given twice (the first one is read, as Core's find_value
// does).
func TestAuditSignNamedAndDuplicates(t *testing.T) {
	s := auditSignServer(t)
	named := `{"hexstring":` + aq(auditTx) + `,"privkeys":[` + aq(auditWIF) + `],"prevtxs":[` + auditGoodPrev + `],"sighashtype":"ALL"}`
	if r := auditOK(t, s, named); !r.Complete {
		t.Fatalf("named: %+v", r)
	}
	runAuditErrors(t, []auditErrCase{
		{"named-bad-sighash", `{"hexstring":` + aq(auditTx) + `,"privkeys":[],"sighashtype":"all"}`, -8, "'all' is not a valid sighash parameter."},
		{"named-unknown", `{"hexstring":` + aq(auditTx) + `,"privkeys":[],"keys":[]}`, -8, "Unknown named parameter keys"},
		{"named-missing-privkeys", `{"hexstring":` + aq(auditTx) + `}`, -1, ""},
		{"duplicate-member-first-read", aParams(aq(auditTx), `[]`, `[{"txid":"`+auditTxid+`","vout":-1,"vout":0,"scriptPubKey":"`+auditSPK+`"}]`), -22, "vout cannot be negative"},
	})
	r := auditOK(t, s, aParams(aq(auditTx), "["+aq(auditWIF)+"]", `[{"txid":"`+auditTxid+`","vout":0,"vout":-1,"scriptPubKey":"`+auditSPK+`","amount":0.5}]`))
	if !r.Complete {
		t.Fatalf("duplicate member: %+v", r)
	}
}

// TestAuditSignExistingSegwitSignature checks d.2 step 2 for a P2WPKH
// signature made over another amount (or checked against the MAX_MONEY
// sentinel when no amount is given): it is invalid, so it is dropped; with
// no key the input ends empty and the hex loses the segwit marker.
func TestAuditSignExistingSegwitSignature(t *testing.T) {
	s := auditSignServer(t)
	signed := auditOK(t, s, aParams(aq(auditTx), "["+aq(auditWIF)+"]", "["+auditGoodPrev+"]"))
	for _, amount := range []string{`,"amount":0.6`, ``} {
		prev := auditPrev(`"txid":"` + auditTxid + `","vout":0,"scriptPubKey":"` + auditSPK + `"` + amount)
		r := auditOK(t, s, aParams(aq(signed.Hex), `[]`, "["+prev+"]"))
		if r.Complete || len(r.Errors) != 1 || r.Errors[0].Error != msgMismatch || len(r.Errors[0].Witness) != 0 || r.Hex != auditTx {
			t.Fatalf("amount %q: %+v", amount, r)
		}
	}
	// With the key and no amount, it is signed again over the sentinel:
	// the missing-amount exception.
	prev := auditPrev(`"txid":"` + auditTxid + `","vout":0,"scriptPubKey":"` + auditSPK + `"`)
	runAuditErrors(t, []auditErrCase{{"resign-no-amount", aParams(aq(signed.Hex), "["+aq(auditWIF)+"]", "["+prev+"]"), -3,
		"Missing amount for CTxOut(nValue=21000000.00000000, scriptPubKey=0014b5d76a7534548b4137a680c33a)"}})
	// With the right amount it is kept as it is.
	if r := auditOK(t, s, aParams(aq(signed.Hex), `[]`, "["+auditGoodPrev+"]")); r.Hex != signed.Hex || !r.Complete {
		t.Fatalf("valid signature not kept: %+v", r)
	}
}
