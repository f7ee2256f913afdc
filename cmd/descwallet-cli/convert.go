package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// paramFormat says how the client turns one command-line argument into a
// JSON-RPC parameter.
type paramFormat int

const (
	// formatJSON parses the argument as a JSON value and fails when it is
	// not one.
	formatJSON paramFormat = iota

	// formatString passes the argument as a string. Listing a string
	// parameter matters only with -named: it lets an argument holding '='
	// (a label, a passphrase, a base64 blob) stay positional.
	formatString

	// formatJSONOrString parses the argument as JSON and falls back to the
	// raw string when it does not parse.
	formatJSONOrString
)

// convertParam names one parameter that is not a plain string, by method,
// position and name.
type convertParam struct {
	method string
	index  int
	name   string
	format paramFormat
}

// convertParams lists, for the methods descwalletd serves or will serve, the
// parameters given as JSON (numbers, booleans, arrays, objects) rather than
// strings, and the string parameters that may contain '='. Every parameter
// not listed is sent as a string. The positions and names follow Bitcoin
// Core's RPC signatures, so scripts written for bitcoin-cli work unchanged.
var convertParams = []convertParam{
	// Control and testing.
	{"stop", 0, "wait", formatJSON},
	{"echojson", 0, "arg0", formatJSON},
	{"echojson", 1, "arg1", formatJSON},
	{"echojson", 2, "arg2", formatJSON},
	{"echojson", 3, "arg3", formatJSON},
	{"echojson", 4, "arg4", formatJSON},
	{"echojson", 5, "arg5", formatJSON},
	{"echojson", 6, "arg6", formatJSON},
	{"echojson", 7, "arg7", formatJSON},
	{"echojson", 8, "arg8", formatJSON},
	{"echojson", 9, "arg9", formatJSON},

	// Descriptors and raw transactions.
	{"deriveaddresses", 1, "range", formatJSON},
	{"signrawtransactionwithkey", 1, "privkeys", formatJSON},
	{"signrawtransactionwithkey", 2, "prevtxs", formatJSON},
	{"signrawtransactionwithwallet", 1, "prevtxs", formatJSON},
	{"walletprocesspsbt", 0, "psbt", formatString},
	{"walletprocesspsbt", 1, "sign", formatJSON},
	{"walletprocesspsbt", 2, "sighashtype", formatString},
	{"walletprocesspsbt", 3, "bip32derivs", formatJSON},
	{"walletprocesspsbt", 4, "finalize", formatJSON},
	{"decoderawtransaction", 1, "iswitness", formatJSON},
	{"sendrawtransaction", 1, "maxfeerate", formatJSON},
	{"sendrawtransaction", 2, "maxburnamount", formatJSON},

	// Wallet management.
	{"createwallet", 0, "wallet_name", formatString},
	{"createwallet", 1, "disable_private_keys", formatJSON},
	{"createwallet", 2, "blank", formatJSON},
	{"createwallet", 3, "passphrase", formatString},
	{"createwallet", 4, "avoid_reuse", formatJSON},
	{"createwallet", 5, "descriptors", formatJSON},
	{"createwallet", 6, "load_on_startup", formatJSON},
	{"createwallet", 7, "external_signer", formatJSON},
	{"loadwallet", 0, "filename", formatString},
	{"loadwallet", 1, "load_on_startup", formatJSON},
	{"unloadwallet", 0, "wallet_name", formatString},
	{"unloadwallet", 1, "load_on_startup", formatJSON},
	{"restorewallet", 0, "wallet_name", formatString},
	{"restorewallet", 1, "backup_file", formatString},
	{"restorewallet", 2, "load_on_startup", formatJSON},
	{"backupwallet", 0, "destination", formatString},

	// Descriptors in a wallet, addresses and labels.
	{"importdescriptors", 0, "requests", formatJSON},
	{"listdescriptors", 0, "private", formatJSON},
	{"getnewaddress", 0, "label", formatString},
	{"getnewaddress", 1, "address_type", formatString},
	{"getaddressesbylabel", 0, "label", formatString},
	{"setlabel", 1, "label", formatString},
	{"keypoolrefill", 0, "newsize", formatJSON},

	// Chain, rescans and transactions.
	{"getblockhash", 0, "height", formatJSON},
	{"getblock", 1, "verbosity", formatJSON},
	{"getblock", 1, "verbose", formatJSON},
	{"getblockheader", 1, "verbose", formatJSON},
	{"getrawtransaction", 1, "verbosity", formatJSON},
	{"getrawtransaction", 1, "verbose", formatJSON},
	{"gettxout", 1, "n", formatJSON},
	{"gettxout", 2, "include_mempool", formatJSON},
	{"rescanblockchain", 0, "start_height", formatJSON},
	{"rescanblockchain", 1, "stop_height", formatJSON},
	{"listunspent", 0, "minconf", formatJSON},
	{"listunspent", 1, "maxconf", formatJSON},
	{"listunspent", 2, "addresses", formatJSON},
	{"listunspent", 3, "include_unsafe", formatJSON},
	{"listunspent", 4, "query_options", formatJSON},
	{"listunspent", 4, "minimumAmount", formatJSON},
	{"listunspent", 4, "maximumAmount", formatJSON},
	{"listunspent", 4, "maximumCount", formatJSON},
	{"listunspent", 4, "minimumSumAmount", formatJSON},
	{"listunspent", 4, "include_immature_coinbase", formatJSON},
	{"listtransactions", 0, "label", formatString},
	{"listtransactions", 1, "count", formatJSON},
	{"listtransactions", 2, "skip", formatJSON},
	{"listtransactions", 3, "include_watchonly", formatJSON},
	{"listsinceblock", 0, "blockhash", formatString},
	{"listsinceblock", 1, "target_confirmations", formatJSON},
	{"listsinceblock", 2, "include_watchonly", formatJSON},
	{"listsinceblock", 3, "include_removed", formatJSON},
	{"listsinceblock", 4, "include_change", formatJSON},
	{"listsinceblock", 5, "label", formatString},
	{"gettransaction", 1, "include_watchonly", formatJSON},
	{"gettransaction", 2, "verbose", formatJSON},
	{"getbalance", 1, "minconf", formatJSON},
	{"getbalance", 2, "include_watchonly", formatJSON},
	{"getbalance", 3, "avoid_reuse", formatJSON},
	{"getreceivedbyaddress", 1, "minconf", formatJSON},
	{"getreceivedbyaddress", 2, "include_immature_coinbase", formatJSON},
	{"getreceivedbylabel", 0, "label", formatString},
	{"getreceivedbylabel", 1, "minconf", formatJSON},
	{"getreceivedbylabel", 2, "include_immature_coinbase", formatJSON},
	{"listreceivedbyaddress", 0, "minconf", formatJSON},
	{"listreceivedbyaddress", 1, "include_empty", formatJSON},
	{"listreceivedbyaddress", 2, "include_watchonly", formatJSON},
	{"listreceivedbyaddress", 4, "include_immature_coinbase", formatJSON},
	{"lockunspent", 0, "unlock", formatJSON},
	{"lockunspent", 1, "transactions", formatJSON},
	{"lockunspent", 2, "persistent", formatJSON},

	// Encryption.
	{"encryptwallet", 0, "passphrase", formatString},
	{"walletpassphrase", 0, "passphrase", formatString},
	{"walletpassphrase", 1, "timeout", formatJSON},
	{"walletpassphrasechange", 0, "oldpassphrase", formatString},
	{"walletpassphrasechange", 1, "newpassphrase", formatString},

	// Messages.
	{"signmessage", 1, "message", formatString},
	{"signmessagewithprivkey", 1, "message", formatString},
	{"verifymessage", 1, "signature", formatString},
	{"verifymessage", 2, "message", formatString},
}

// byPosition finds the table entry for a method's parameter at index.
func byPosition(method string, index int) *convertParam {
	for i := range convertParams {
		p := &convertParams[i]
		if p.method == method && p.index == index {
			return p
		}
	}
	return nil
}

// byName finds the table entry for a method's parameter called name.
func byName(method, name string) *convertParam {
	for i := range convertParams {
		p := &convertParams[i]
		if p.method == method && p.name == name {
			return p
		}
	}
	return nil
}

// parseJSONValue parses s as exactly one JSON value of any kind (whitespace
// around it allowed) and returns it compacted, numbers kept as written.
func parseJSONValue(s string) (json.RawMessage, bool) {
	if !json.Valid([]byte(s)) {
		return nil, false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// parseParam converts one argument according to its table entry (nil for
// a plain string).
func parseParam(p *convertParam, raw string) (json.RawMessage, error) {
	if p != nil && (p.format == formatJSON || p.format == formatJSONOrString) {
		if v, ok := parseJSONValue(raw); ok {
			return v, nil
		}
		if p.format == formatJSON {
			return nil, fmt.Errorf("Error parsing JSON: %s", raw)
		}
	}
	return jsonString(raw), nil
}

// jsonString encodes s as a JSON string without HTML escaping.
func jsonString(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// convertPositional turns positional arguments into a params array.
func convertPositional(method string, args []string) (json.RawMessage, error) {
	vals := make([]json.RawMessage, 0, len(args))
	for i, a := range args {
		v, err := parseParam(byPosition(method, i), a)
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	return marshalArray(vals), nil
}

// namedParam is one key of a params object, kept in order.
type namedParam struct {
	name  string
	value json.RawMessage
}

// convertNamed turns -named arguments into a params object. An argument
// without '=' is positional; one with '=' is NAME=VALUE, unless NAME is not
// a parameter of the method and the next positional parameter takes a JSON
// value the whole argument parses as, or takes a string: then the whole
// argument is that positional value. Positional values travel in the "args"
// member, added last. A name given twice keeps its first place and its last
// value.
func convertNamed(method string, args []string) (json.RawMessage, error) {
	var params []namedParam
	var positional []json.RawMessage
	for _, s := range args {
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			v, err := parseParam(byPosition(method, len(positional)), s)
			if err != nil {
				return nil, err
			}
			positional = append(positional, v)
			continue
		}
		name, value := s[:eq], s[eq+1:]
		named := byName(method, name)
		if named == nil {
			next := byPosition(method, len(positional))
			if next != nil && next.format == formatJSON {
				if v, ok := parseJSONValue(s); ok {
					positional = append(positional, v)
					continue
				}
			} else if next != nil && next.format == formatString {
				positional = append(positional, jsonString(s))
				continue
			}
		}
		v, err := parseParam(named, value)
		if err != nil {
			return nil, err
		}
		params = setParam(params, name, v)
	}
	if len(positional) > 0 {
		params = append(params, namedParam{"args", marshalArray(positional)})
	}
	return marshalObject(params), nil
}

// setParam replaces the value of name in place, or appends it.
func setParam(params []namedParam, name string, v json.RawMessage) []namedParam {
	for i := range params {
		if params[i].name == name {
			params[i].value = v
			return params
		}
	}
	return append(params, namedParam{name, v})
}

// marshalArray writes a JSON array of already-encoded values.
func marshalArray(vals []json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, v := range vals {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(v)
	}
	buf.WriteByte(']')
	return buf.Bytes()
}

// marshalObject writes a JSON object with its members in order.
func marshalObject(params []namedParam) json.RawMessage {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, p := range params {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(jsonString(p.name))
		buf.WriteByte(':')
		buf.Write(p.value)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}
