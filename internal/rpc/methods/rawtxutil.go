package methods

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
)

// This file builds unsigned transactions from createrawtransaction's
// arguments (Core's ConstructTransaction in rawtransaction_util.cpp), for
// createrawtransaction and createpsbt.

// Sequence numbers and limits of Core's transaction construction.
const (
	seqFinal         = 0xffffffff
	seqMaxNonFinal   = 0xfffffffe
	seqMaxBIP125     = 0xfffffffd
	defaultTxVersion = 2
	minTxVersion     = 1
	maxTxVersion     = 3
)

// jsonMember is one member of a JSON object, in the order written;
// duplicate keys are kept, as Core's UniValue keeps them.
type jsonMember struct {
	Key   string
	Value json.RawMessage
}

// orderedMembers returns the members of a JSON object in order, duplicates
// included. raw must be an object (checked by the caller).
func orderedMembers(raw json.RawMessage) ([]jsonMember, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []jsonMember
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, jsonMember{key, v})
	}
	return out, nil
}

// firstValue is Core's obj[key]: the value of the first member named key.
func firstValue(members []jsonMember, key string) json.RawMessage {
	for _, m := range members {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// txVersionArg reads the version argument as Core's Arg<uint32_t>, with
// the default when absent or null.
func txVersionArg(req *rpc.Request, i int) (uint32, error) {
	if !req.Has(i) {
		return defaultTxVersion, nil
	}
	n, err := rpc.AsNumber(req.Arg(i))
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseUint(string(n), 10, 32)
	if perr != nil {
		return 0, rpc.ErrIntegerOutOfRange
	}
	return uint32(v), nil
}

// constructTransaction is Core's ConstructTransaction: the unsigned
// transaction of createrawtransaction and createpsbt from the raw inputs,
// outputs and locktime arguments, the replaceable flag (nil when not given)
// and the version, with Core's checks in Core's order.
func constructTransaction(net *chaincfg.Params, inputs, outputs, locktime json.RawMessage, rbf *bool, version uint32) (*wire.MsgTx, error) {
	tx := &wire.MsgTx{}
	if !rpc.IsNull(locktime) {
		lt, err := rpc.AsInt64(locktime)
		if err != nil {
			return nil, err
		}
		if lt < 0 || lt > 0xffffffff {
			return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, locktime out of range")
		}
		tx.LockTime = uint32(lt)
	}
	if version < minTxVersion || version > maxTxVersion {
		return nil, rpc.Errorf(rpc.CodeInvalidParameter,
			"Invalid parameter, version out of range(%d~%d)", minTxVersion, maxTxVersion)
	}
	tx.Version = int32(version)
	if err := addInputs(tx, inputs, rbf); err != nil {
		return nil, err
	}
	if err := addOutputs(tx, outputs, net); err != nil {
		return nil, err
	}
	if rbf != nil && *rbf && len(tx.TxIn) > 0 && !signalsRBF(tx) {
		return nil, rpc.NewError(rpc.CodeInvalidParameter,
			"Invalid parameter combination: Sequence number(s) contradict replaceable option")
	}
	return tx, nil
}

// signalsRBF is Core's SignalsOptInRBF: some input's sequence is at most
// 0xfffffffd.
func signalsRBF(tx *wire.MsgTx) bool {
	for _, in := range tx.TxIn {
		if in.Sequence <= seqMaxBIP125 {
			return true
		}
	}
	return false
}

// addInputs is Core's AddInputs.
func addInputs(tx *wire.MsgTx, raw json.RawMessage, rbf *bool) error {
	var inputs []json.RawMessage
	if !rpc.IsNull(raw) {
		if t := rpc.JSONType(raw); t != "array" {
			return rpc.TypeError(t, "array")
		}
		if err := json.Unmarshal(raw, &inputs); err != nil {
			return err
		}
	}
	for _, in := range inputs {
		if t := rpc.JSONType(in); t != "object" {
			return rpc.TypeError(t, "object")
		}
		members, err := orderedMembers(in)
		if err != nil {
			return err
		}
		txidStr, err := rpc.AsString(firstValue(members, "txid"))
		if err != nil {
			return err
		}
		txid, err := parseHash(txidStr, "txid")
		if err != nil {
			return err
		}
		voutRaw := firstValue(members, "vout")
		if rpc.JSONType(voutRaw) != "number" {
			return rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, missing vout key")
		}
		vout, err := rpc.AsInt(voutRaw)
		if err != nil {
			return err
		}
		if vout < 0 {
			return rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, vout cannot be negative")
		}
		seq := uint32(seqFinal)
		switch {
		case rbf == nil || *rbf:
			seq = seqMaxBIP125
		case tx.LockTime != 0:
			seq = seqMaxNonFinal
		}
		if seqRaw := firstValue(members, "sequence"); rpc.JSONType(seqRaw) == "number" {
			s, err := rpc.AsInt64(seqRaw)
			if err != nil {
				return err
			}
			if s < 0 || s > seqFinal {
				return rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, sequence number is out of range")
			}
			seq = uint32(s)
		}
		tx.TxIn = append(tx.TxIn, &wire.TxIn{
			PreviousOutPoint: wire.OutPoint{Hash: txid, Index: uint32(vout)},
			Sequence:         seq,
		})
	}
	return nil
}

// normalizeOutputs is Core's NormalizeOutputs: the outputs as one list of
// key-value members, from an object or from an array of one-member
// objects.
func normalizeOutputs(raw json.RawMessage) ([]jsonMember, error) {
	switch t := rpc.JSONType(raw); t {
	case "null":
		return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, output argument must be non-null")
	case "object":
		return orderedMembers(raw)
	case "array":
	default:
		return nil, rpc.TypeError(t, "array")
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, err
	}
	var out []jsonMember
	for _, e := range elems {
		if rpc.JSONType(e) != "object" {
			return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, key-value pair not an object as expected")
		}
		m, err := orderedMembers(e)
		if err != nil {
			return nil, err
		}
		if len(m) != 1 {
			return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, key-value pair must contain exactly one key")
		}
		out = append(out, m[0])
	}
	return out, nil
}

// parsedOutput is one output of ParseOutputs: its script and amount.
type parsedOutput struct {
	Script []byte
	Amount rpc.Amount
}

// parseOutputs is Core's ParseOutputs: a data output (at most one, an
// OP_RETURN of the hex, amount zero) or address outputs (amount read
// before the address is checked; no destination twice).
func parseOutputs(members []jsonMember, net *chaincfg.Params) ([]parsedOutput, error) {
	var out []parsedOutput
	seen := map[string]bool{}
	hasData := false
	for _, m := range members {
		if m.Key == "data" {
			if hasData {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, duplicate key: data")
			}
			hasData = true
			data, err := parseHex(valStr(firstValue(members, "data")), "Data")
			if err != nil {
				return nil, err
			}
			spk := append([]byte{script.OpReturn}, script.AppendPush(nil, data)...)
			out = append(out, parsedOutput{Script: spk})
			continue
		}
		spk, decErr := address.Decode(m.Key, net)
		amount, err := rpc.AsAmount(firstValue(members, m.Key))
		if err != nil {
			return nil, err
		}
		if decErr != nil {
			return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Invalid Bitcoin address: "+m.Key)
		}
		if seen[string(spk)] {
			return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, duplicated address: "+m.Key)
		}
		seen[string(spk)] = true
		out = append(out, parsedOutput{Script: spk, Amount: amount})
	}
	return out, nil
}

// addOutputs is Core's AddOutputs.
func addOutputs(tx *wire.MsgTx, raw json.RawMessage, net *chaincfg.Params) error {
	members, err := normalizeOutputs(raw)
	if err != nil {
		return err
	}
	outs, err := parseOutputs(members, net)
	if err != nil {
		return err
	}
	for _, o := range outs {
		tx.TxOut = append(tx.TxOut, &wire.TxOut{Value: int64(o.Amount), PkScript: o.Script})
	}
	return nil
}

// valStr is UniValue's getValStr: a string's text, a number's text, "1" for
// true and "" for anything else.
func valStr(raw json.RawMessage) string {
	switch rpc.JSONType(raw) {
	case "string":
		s, _ := rpc.AsString(raw)
		return s
	case "number":
		n, _ := rpc.AsNumber(raw)
		return string(n)
	case "bool":
		if string(bytes.TrimSpace(raw)) == "true" {
			return "1"
		}
	}
	return ""
}
