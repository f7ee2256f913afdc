package methods

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/sign"
)

// signResult is signrawtransactionwithkey's reply in Core's field order;
// errors is left out when empty, as Core does.
type signResult struct {
	Hex      string           `json:"hex"`
	Complete bool             `json:"complete"`
	Errors   []signInputError `json:"errors,omitempty"`
}

// signInputError is one entry of errors, in Core's field order.
type signInputError struct {
	TxID      string   `json:"txid"`
	Vout      uint32   `json:"vout"`
	Witness   []string `json:"witness"`
	ScriptSig string   `json:"scriptSig"`
	Sequence  uint32   `json:"sequence"`
	Error     string   `json:"error"`
}

// sighashTypes are the sighashtype strings Core accepts (case-sensitive).
var sighashTypes = map[string]txscript.SigHashType{
	"DEFAULT":             sign.SigHashDefault,
	"ALL":                 txscript.SigHashAll,
	"NONE":                txscript.SigHashNone,
	"SINGLE":              txscript.SigHashSingle,
	"ALL|ANYONECANPAY":    txscript.SigHashAll | txscript.SigHashAnyOneCanPay,
	"NONE|ANYONECANPAY":   txscript.SigHashNone | txscript.SigHashAnyOneCanPay,
	"SINGLE|ANYONECANPAY": txscript.SigHashSingle | txscript.SigHashAnyOneCanPay,
}

// newSignRawTransactionWithKey returns the signrawtransactionwithkey method.
func newSignRawTransactionWithKey(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "signrawtransactionwithkey",
		Category: "rawtransactions",
		Description: "Signs the inputs of a raw transaction (serialized, hex) with the " +
			"given private keys, which are used for this call only.\n" +
			"prevtxs describes the outputs being spent: their scriptPubKey, amount " +
			"and, for P2SH and P2WSH, the redeemScript or witnessScript. Signatures " +
			"already in the transaction are kept when valid, so a multisig can be " +
			"signed by several calls in turn.",
		Params: []rpc.Param{
			{Name: "hexstring", Type: rpc.TypeString,
				Description: "The transaction, hex-encoded."},
			{Name: "privkeys", Type: rpc.TypeArray,
				Description: "Private keys in wallet import format (WIF) to sign with.",
				Fields: []rpc.Param{{Name: "privatekey", Type: rpc.TypeString,
					Description: "A private key in WIF."}}},
			{Name: "prevtxs", Type: rpc.TypeArray, Optional: true,
				Description: "The previous outputs the transaction spends.",
				Fields: []rpc.Param{{Name: "", Type: rpc.TypeObject, Fields: []rpc.Param{
					{Name: "txid", Type: rpc.TypeHex, Description: "The transaction id."},
					{Name: "vout", Type: rpc.TypeNumber, Description: "The output number."},
					{Name: "scriptPubKey", Type: rpc.TypeHex, Description: "The output script."},
					{Name: "redeemScript", Type: rpc.TypeHex, Optional: true,
						Description: "For P2SH outputs: the redeem script."},
					{Name: "witnessScript", Type: rpc.TypeHex, Optional: true,
						Description: "For P2WSH and P2SH-P2WSH outputs: the witness script."},
					{Name: "amount", Type: rpc.TypeAmount, Optional: true,
						Description: "The output's amount in BTC; required for segwit and taproot inputs."},
				}}}},
			{Name: "sighashtype", Type: rpc.TypeString, Optional: true, Default: `"DEFAULT"`,
				Description: "The signature hash type: \"DEFAULT\", \"ALL\", \"NONE\", " +
					"\"SINGLE\", \"ALL|ANYONECANPAY\", \"NONE|ANYONECANPAY\" or " +
					"\"SINGLE|ANYONECANPAY\". DEFAULT signs taproot inputs without a " +
					"hash-type byte and other inputs as ALL."},
		},
		Result: "{\n  \"hex\" : \"hex\",        (string) The transaction with the signatures made\n" +
			"  \"complete\" : true|false,  (boolean) Whether every input is fully signed\n" +
			"  \"errors\" : [ {           (json array, omitted when empty) Inputs left incomplete\n" +
			"      \"txid\", \"vout\", \"witness\", \"scriptSig\", \"sequence\", \"error\" } ]\n}",
		Examples: []string{`"myhex" "[\"key1\",\"key2\"]"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			return signRawTransactionWithKey(ctx, d.Net, req, backendCoins(ctx, d))
		},
	}
}

// signRawTransactionWithKey runs the call with Core's order of checks:
// transaction, keys, prevtxs, sighash type; then signs.
// find, when not nil, fills in the coins the chain knows before prevtxs
// are read (Core's FindCoins).
func signRawTransactionWithKey(ctx context.Context, net *chaincfg.Params, req *rpc.Request, find func(*wire.MsgTx, sign.Coins) error) (any, error) {
	hexTx, err := req.String(0)
	if err != nil {
		return nil, err
	}
	tx, err := sign.DecodeTx(hexTx)
	if err != nil {
		return nil, err
	}

	rawKeys, ok := rpc.Elements(req.Arg(1))
	if !ok {
		if err := req.Decode(1, &rawKeys); err != nil {
			return nil, err
		}
	}
	// Keys are read in order: the strings up to the first non-string
	// element, then their WIFs, so that a bad key before a non-string one
	// is the error, as in Core.
	wifs := make([]string, 0, len(rawKeys))
	var typeErr error
	for _, raw := range rawKeys {
		s, err := rpc.AsString(raw)
		if err != nil {
			typeErr = err
			break
		}
		wifs = append(wifs, s)
	}
	keys, err := sign.DecodeWIFs(wifs, net)
	if err != nil {
		return nil, err
	}
	if typeErr != nil {
		return nil, typeErr
	}
	provider := sign.NewProvider(keys...)

	coins := make(sign.Coins, len(tx.TxIn))
	if find != nil {
		if err := find(tx, coins); err != nil {
			return nil, err
		}
	}
	if err := readPrevTxs(req, 2, provider, coins); err != nil {
		return nil, err
	}
	hashType, err := parseSighash(req, 3)
	if err != nil {
		return nil, err
	}

	inputErrs, err := sign.SignTransactionContext(ctx, tx, coins, provider, hashType)
	if err != nil {
		return nil, err
	}
	return buildSignResult(tx, inputErrs), nil
}

// buildSignResult serializes the transaction and lists the inputs left
// incomplete.
func buildSignResult(tx *wire.MsgTx, inputErrs []sign.InputError) *signResult {
	var buf bytes.Buffer
	buf.Grow(tx.SerializeSize())
	_ = tx.Serialize(&buf)
	res := &signResult{Hex: hex.EncodeToString(buf.Bytes()), Complete: len(inputErrs) == 0}
	for _, e := range inputErrs {
		in := tx.TxIn[e.Index]
		w := make([]string, len(in.Witness))
		for i, item := range in.Witness {
			w[i] = hex.EncodeToString(item)
		}
		res.Errors = append(res.Errors, signInputError{
			TxID:      in.PreviousOutPoint.Hash.String(),
			Vout:      in.PreviousOutPoint.Index,
			Witness:   w,
			ScriptSig: hex.EncodeToString(in.SignatureScript),
			Sequence:  in.Sequence,
			Error:     e.Message,
		})
	}
	return res
}

// errPrevTxNotObject is Core's message for a prevtxs element that is not an
// object (with its stray quote).
const errPrevTxNotObject = `expected object with {"txid'","vout","scriptPubKey"}`

// parsePrevTx is one element of Core's ParsePrevouts: it checks the entry
// in Core's order, records the coin and adds the entry's script to the
// provider. With no provider (signrawtransactionwithwallet, whose scripts
// come from the wallet) the redeemScript and witnessScript are not read,
// as in Core.
func parsePrevTx(raw json.RawMessage, p *sign.Provider, coins sign.Coins) error {
	if rpc.JSONType(raw) != "object" {
		return rpc.NewError(rpc.CodeDeserialization, errPrevTxNotObject)
	}
	obj, err := objectMembers(raw)
	if err != nil {
		return err
	}

	// Required fields, checked in the order of their names.
	for _, f := range []struct{ name, want string }{
		{"scriptPubKey", "string"}, {"txid", "string"}, {"vout", "number"},
	} {
		v, ok := obj[f.name]
		if !ok || rpc.IsNull(v) {
			return rpc.NewError(rpc.CodeTypeError, "Missing "+f.name)
		}
		if t := rpc.JSONType(v); t != f.want {
			return fieldTypeError(t, f.name, f.want)
		}
	}

	txidStr, _ := rpc.AsString(obj["txid"])
	txid, err := parseHash(txidStr, "txid")
	if err != nil {
		return err
	}
	vout, err := rpc.AsInt(obj["vout"])
	if err != nil {
		return err
	}
	if vout < 0 {
		return rpc.NewError(rpc.CodeDeserialization, "vout cannot be negative")
	}
	op := wire.OutPoint{Hash: txid, Index: uint32(vout)}
	pkStr, _ := rpc.AsString(obj["scriptPubKey"])
	pk, err := parseHex(pkStr, "scriptPubKey")
	if err != nil {
		return err
	}

	if err := coins.Check(op, pk); err != nil {
		return err
	}
	amount := int64(sign.MaxMoney)
	if v, ok := obj["amount"]; ok {
		a, err := rpc.AsAmount(v)
		if err != nil {
			return err
		}
		amount = int64(a)
	}
	coins[op] = &sign.Coin{PkScript: pk, Amount: amount}

	isP2SH := len(pk) == 23 && pk[0] == 0xa9 && pk[1] == 0x14 && pk[22] == 0x87
	isP2WSH := len(pk) == 34 && pk[0] == 0x00 && pk[1] == 0x20
	if p == nil || (!isP2SH && !isP2WSH) {
		return nil
	}
	return addPrevTxScript(obj, pk, isP2SH, p)
}

// addPrevTxScript handles the redeemScript/witnessScript of a P2SH or P2WSH
// prevtxs entry as Core does.
func addPrevTxScript(obj map[string]json.RawMessage, pk []byte, isP2SH bool, p *sign.Provider) error {
	for _, name := range []string{"redeemScript", "witnessScript"} {
		if v, ok := obj[name]; ok && !rpc.IsNull(v) && rpc.JSONType(v) != "string" {
			return fieldTypeError(rpc.JSONType(v), name, "string")
		}
	}
	rsRaw, wsRaw := obj["redeemScript"], obj["witnessScript"]
	if rpc.IsNull(rsRaw) && rpc.IsNull(wsRaw) {
		return rpc.NewError(rpc.CodeInvalidParameter, "Missing redeemScript/witnessScript")
	}
	rsStr, _ := rpc.AsString(rsRaw)
	wsStr, _ := rpc.AsString(wsRaw)

	// The witnessScript is preferred; the script's P2WSH form is added too,
	// which serves a P2SH-wrapped P2WSH described by either field.
	var scr []byte
	var err error
	if !rpc.IsNull(wsRaw) {
		scr, err = parseHex(wsStr, "witnessScript")
	} else {
		scr, err = parseHex(rsStr, "redeemScript")
	}
	if err != nil {
		return err
	}
	p.AddScript(scr)
	wrapped := sign.P2WSH(scr)
	p.AddScript(wrapped)

	if !rpc.IsNull(wsRaw) && !rpc.IsNull(rsRaw) && wsStr != rsStr {
		rs, err := parseHex(rsStr, "redeemScript")
		if err != nil {
			return err
		}
		if !bytes.Equal(rs, wrapped) {
			return rpc.NewError(rpc.CodeInvalidParameter,
				"redeemScript does not correspond to witnessScript")
		}
	}

	if isP2SH {
		if bytes.Equal(pk, p2sh(scr)) || bytes.Equal(pk, p2sh(wrapped)) {
			return nil
		}
	} else if bytes.Equal(pk, wrapped) {
		return nil
	}
	return rpc.NewError(rpc.CodeInvalidParameter,
		"redeemScript/witnessScript does not match scriptPubKey")
}

// p2sh returns the P2SH output script of a redeemScript.
func p2sh(redeem []byte) []byte {
	h := script.Hash160(redeem)
	out := append([]byte{0xa9, 0x14}, h[:]...)
	return append(out, 0x87)
}

// fieldTypeError is Core's RPCTypeCheckObj message for a member of the
// wrong type.
func fieldTypeError(got, name, want string) error {
	return rpc.Errorf(rpc.CodeTypeError,
		"JSON value of type %s for field %s is not of expected type %s", got, name, want)
}

// parseHash is Core's ParseHashV: 64 hex digits, read in display order.
func parseHash(s, name string) (chainhash.Hash, error) {
	var h chainhash.Hash
	if len(s) != 64 {
		return h, rpc.Errorf(rpc.CodeInvalidParameter,
			"%s must be of length %d (not %d, for '%s')", name, 64, len(s), s)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return h, rpc.Errorf(rpc.CodeInvalidParameter,
			"%s must be hexadecimal string (not '%s')", name, s)
	}
	for i := range b {
		h[i] = b[len(b)-1-i]
	}
	return h, nil
}

// parseHex is Core's ParseHexV: non-empty, even-length hex.
func parseHex(s, name string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(s) == 0 {
		return nil, rpc.Errorf(rpc.CodeInvalidParameter,
			"%s must be hexadecimal string (not '%s')", name, s)
	}
	return b, nil
}

// objectMembers decodes a JSON object's members; a key given twice keeps
// its first value, as Core's find_value reads it.
func objectMembers(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if m, ok := rpc.Members(raw); ok {
		return m, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, rpc.NewError(rpc.CodeDeserialization, errPrevTxNotObject)
	}
	out := make(map[string]json.RawMessage)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("prevtxs member: %w", err)
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("prevtxs member %q: %w", key, err)
		}
		if _, dup := out[key]; !dup {
			out[key] = v
		}
	}
	return out, nil
}

// readPrevTxs reads the prevtxs array of argument i (absent or null: none)
// into coins, and the scripts it gives into provider when one is given.
func readPrevTxs(req *rpc.Request, i int, provider *sign.Provider, coins sign.Coins) error {
	if !req.Has(i) {
		return nil
	}
	prevtxs, ok := rpc.Elements(req.Arg(i))
	if !ok {
		if err := req.Decode(i, &prevtxs); err != nil {
			return err
		}
	}
	for _, p := range prevtxs {
		if err := parsePrevTx(p, provider, coins); err != nil {
			return err
		}
	}
	return nil
}
