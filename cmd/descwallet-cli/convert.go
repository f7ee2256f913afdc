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

	// Every other parameter bitcoin-cli converts, so that a call written
	// for bitcoin-cli sends the same JSON: the methods descwalletd serves
	// and those a bitcoind backend answers for it. Options of an object
	// parameter are listed at its position, for -named calls.
	{"addconnection", 2, "v2transport", formatJSON},
	{"addnode", 2, "v2transport", formatJSON},
	{"addpeeraddress", 1, "port", formatJSON},
	{"addpeeraddress", 2, "tried", formatJSON},
	{"analyzepsbt", 0, "psbt", formatString},
	{"bumpfee", 1, "options", formatJSON},
	{"bumpfee", 1, "conf_target", formatJSON},
	{"bumpfee", 1, "fee_rate", formatJSON},
	{"bumpfee", 1, "replaceable", formatJSON},
	{"bumpfee", 1, "outputs", formatJSON},
	{"bumpfee", 1, "original_change_index", formatJSON},
	{"combinepsbt", 0, "txs", formatJSON},
	{"combinerawtransaction", 0, "txs", formatJSON},
	{"converttopsbt", 1, "permitsigdata", formatJSON},
	{"converttopsbt", 2, "iswitness", formatJSON},
	{"createmultisig", 0, "nrequired", formatJSON},
	{"createmultisig", 1, "keys", formatJSON},
	{"createpsbt", 0, "inputs", formatJSON},
	{"createpsbt", 1, "outputs", formatJSON},
	{"createpsbt", 2, "locktime", formatJSON},
	{"createpsbt", 3, "replaceable", formatJSON},
	{"createpsbt", 4, "version", formatJSON},
	{"createrawtransaction", 0, "inputs", formatJSON},
	{"createrawtransaction", 1, "outputs", formatJSON},
	{"createrawtransaction", 2, "locktime", formatJSON},
	{"createrawtransaction", 3, "replaceable", formatJSON},
	{"createrawtransaction", 4, "version", formatJSON},
	{"createwalletdescriptor", 1, "options", formatJSON},
	{"createwalletdescriptor", 1, "internal", formatJSON},
	{"decodepsbt", 0, "psbt", formatString},
	{"descriptorprocesspsbt", 0, "psbt", formatString},
	{"descriptorprocesspsbt", 1, "descriptors", formatJSON},
	{"descriptorprocesspsbt", 2, "sighashtype", formatString},
	{"descriptorprocesspsbt", 3, "bip32derivs", formatJSON},
	{"descriptorprocesspsbt", 4, "finalize", formatJSON},
	{"disconnectnode", 1, "nodeid", formatJSON},
	{"dumptxoutset", 0, "path", formatString},
	{"dumptxoutset", 1, "type", formatString},
	{"dumptxoutset", 2, "options", formatJSON},
	{"dumptxoutset", 2, "rollback", formatJSONOrString},
	{"echoipc", 0, "arg", formatString},
	{"estimaterawfee", 0, "conf_target", formatJSON},
	{"estimaterawfee", 1, "threshold", formatJSON},
	{"estimatesmartfee", 0, "conf_target", formatJSON},
	{"finalizepsbt", 0, "psbt", formatString},
	{"finalizepsbt", 1, "extract", formatJSON},
	{"fundrawtransaction", 1, "options", formatJSON},
	{"fundrawtransaction", 1, "add_inputs", formatJSON},
	{"fundrawtransaction", 1, "include_unsafe", formatJSON},
	{"fundrawtransaction", 1, "minconf", formatJSON},
	{"fundrawtransaction", 1, "maxconf", formatJSON},
	{"fundrawtransaction", 1, "changePosition", formatJSON},
	{"fundrawtransaction", 1, "includeWatching", formatJSON},
	{"fundrawtransaction", 1, "lockUnspents", formatJSON},
	{"fundrawtransaction", 1, "fee_rate", formatJSON},
	{"fundrawtransaction", 1, "feeRate", formatJSON},
	{"fundrawtransaction", 1, "subtractFeeFromOutputs", formatJSON},
	{"fundrawtransaction", 1, "input_weights", formatJSON},
	{"fundrawtransaction", 1, "conf_target", formatJSON},
	{"fundrawtransaction", 1, "replaceable", formatJSON},
	{"fundrawtransaction", 1, "solving_data", formatJSON},
	{"fundrawtransaction", 1, "max_tx_weight", formatJSON},
	{"fundrawtransaction", 2, "iswitness", formatJSON},
	{"generateblock", 1, "transactions", formatJSON},
	{"generateblock", 2, "submit", formatJSON},
	{"generatetoaddress", 0, "nblocks", formatJSON},
	{"generatetoaddress", 2, "maxtries", formatJSON},
	{"generatetodescriptor", 0, "num_blocks", formatJSON},
	{"generatetodescriptor", 2, "maxtries", formatJSON},
	{"getblockfrompeer", 1, "peer_id", formatJSON},
	{"getblockstats", 0, "hash_or_height", formatJSONOrString},
	{"getblockstats", 1, "stats", formatJSON},
	{"getblocktemplate", 0, "template_request", formatJSON},
	{"getchaintxstats", 0, "nblocks", formatJSON},
	{"getdescriptoractivity", 0, "blockhashes", formatJSON},
	{"getdescriptoractivity", 1, "scanobjects", formatJSON},
	{"getdescriptoractivity", 2, "include_mempool", formatJSON},
	{"gethdkeys", 0, "active_only", formatJSON},
	{"gethdkeys", 0, "options", formatJSON},
	{"gethdkeys", 0, "private", formatJSON},
	{"getmempoolancestors", 1, "verbose", formatJSON},
	{"getmempooldescendants", 1, "verbose", formatJSON},
	{"getnetworkhashps", 0, "nblocks", formatJSON},
	{"getnetworkhashps", 1, "height", formatJSON},
	{"getnodeaddresses", 0, "count", formatJSON},
	{"getorphantxs", 0, "verbosity", formatJSON},
	{"getrawmempool", 0, "verbose", formatJSON},
	{"getrawmempool", 1, "mempool_sequence", formatJSON},
	{"gettxoutproof", 0, "txids", formatJSON},
	{"gettxoutsetinfo", 1, "hash_or_height", formatJSONOrString},
	{"gettxoutsetinfo", 2, "use_index", formatJSON},
	{"gettxspendingprevout", 0, "outputs", formatJSON},
	{"importmempool", 0, "filepath", formatString},
	{"importmempool", 1, "options", formatJSON},
	{"importmempool", 1, "apply_fee_delta_priority", formatJSON},
	{"importmempool", 1, "use_current_time", formatJSON},
	{"importmempool", 1, "apply_unbroadcast_set", formatJSON},
	{"joinpsbts", 0, "txs", formatJSON},
	{"listreceivedbylabel", 0, "minconf", formatJSON},
	{"listreceivedbylabel", 1, "include_empty", formatJSON},
	{"listreceivedbylabel", 2, "include_watchonly", formatJSON},
	{"listreceivedbylabel", 3, "include_immature_coinbase", formatJSON},
	{"loadtxoutset", 0, "path", formatString},
	{"logging", 0, "include", formatJSON},
	{"logging", 1, "exclude", formatJSON},
	{"migratewallet", 0, "wallet_name", formatString},
	{"migratewallet", 1, "passphrase", formatString},
	{"mockscheduler", 0, "delta_time", formatJSON},
	{"prioritisetransaction", 1, "dummy", formatJSON},
	{"prioritisetransaction", 2, "fee_delta", formatJSON},
	{"pruneblockchain", 0, "height", formatJSON},
	{"psbtbumpfee", 1, "options", formatJSON},
	{"psbtbumpfee", 1, "conf_target", formatJSON},
	{"psbtbumpfee", 1, "fee_rate", formatJSON},
	{"psbtbumpfee", 1, "replaceable", formatJSON},
	{"psbtbumpfee", 1, "outputs", formatJSON},
	{"psbtbumpfee", 1, "original_change_index", formatJSON},
	{"scanblocks", 1, "scanobjects", formatJSON},
	{"scanblocks", 2, "start_height", formatJSON},
	{"scanblocks", 3, "stop_height", formatJSON},
	{"scanblocks", 5, "options", formatJSON},
	{"scanblocks", 5, "filter_false_positives", formatJSON},
	{"scantxoutset", 1, "scanobjects", formatJSON},
	{"send", 0, "outputs", formatJSON},
	{"send", 1, "conf_target", formatJSON},
	{"send", 3, "fee_rate", formatJSON},
	{"send", 4, "options", formatJSON},
	{"send", 4, "add_inputs", formatJSON},
	{"send", 4, "include_unsafe", formatJSON},
	{"send", 4, "minconf", formatJSON},
	{"send", 4, "maxconf", formatJSON},
	{"send", 4, "add_to_wallet", formatJSON},
	{"send", 4, "change_position", formatJSON},
	{"send", 4, "fee_rate", formatJSON},
	{"send", 4, "include_watching", formatJSON},
	{"send", 4, "inputs", formatJSON},
	{"send", 4, "locktime", formatJSON},
	{"send", 4, "lock_unspents", formatJSON},
	{"send", 4, "psbt", formatJSON},
	{"send", 4, "subtract_fee_from_outputs", formatJSON},
	{"send", 4, "conf_target", formatJSON},
	{"send", 4, "replaceable", formatJSON},
	{"send", 4, "solving_data", formatJSON},
	{"send", 4, "max_tx_weight", formatJSON},
	{"send", 5, "version", formatJSON},
	{"sendall", 0, "recipients", formatJSON},
	{"sendall", 1, "conf_target", formatJSON},
	{"sendall", 3, "fee_rate", formatJSON},
	{"sendall", 4, "options", formatJSON},
	{"sendall", 4, "add_to_wallet", formatJSON},
	{"sendall", 4, "fee_rate", formatJSON},
	{"sendall", 4, "include_watching", formatJSON},
	{"sendall", 4, "inputs", formatJSON},
	{"sendall", 4, "locktime", formatJSON},
	{"sendall", 4, "lock_unspents", formatJSON},
	{"sendall", 4, "psbt", formatJSON},
	{"sendall", 4, "send_max", formatJSON},
	{"sendall", 4, "minconf", formatJSON},
	{"sendall", 4, "maxconf", formatJSON},
	{"sendall", 4, "conf_target", formatJSON},
	{"sendall", 4, "replaceable", formatJSON},
	{"sendall", 4, "solving_data", formatJSON},
	{"sendall", 4, "version", formatJSON},
	{"sendmany", 0, "dummy", formatString},
	{"sendmany", 1, "amounts", formatJSON},
	{"sendmany", 2, "minconf", formatJSON},
	{"sendmany", 3, "comment", formatString},
	{"sendmany", 4, "subtractfeefrom", formatJSON},
	{"sendmany", 5, "replaceable", formatJSON},
	{"sendmany", 6, "conf_target", formatJSON},
	{"sendmany", 7, "estimate_mode", formatString},
	{"sendmany", 8, "fee_rate", formatJSON},
	{"sendmany", 9, "verbose", formatJSON},
	{"sendmsgtopeer", 0, "peer_id", formatJSON},
	{"sendtoaddress", 0, "address", formatString},
	{"sendtoaddress", 1, "amount", formatJSON},
	{"sendtoaddress", 2, "comment", formatString},
	{"sendtoaddress", 3, "comment_to", formatString},
	{"sendtoaddress", 4, "subtractfeefromamount", formatJSON},
	{"sendtoaddress", 5, "replaceable", formatJSON},
	{"sendtoaddress", 6, "conf_target", formatJSON},
	{"sendtoaddress", 7, "estimate_mode", formatString},
	{"sendtoaddress", 8, "avoid_reuse", formatJSON},
	{"sendtoaddress", 9, "fee_rate", formatJSON},
	{"sendtoaddress", 10, "verbose", formatJSON},
	{"setban", 2, "bantime", formatJSON},
	{"setban", 3, "absolute", formatJSON},
	{"setmocktime", 0, "timestamp", formatJSON},
	{"setnetworkactive", 0, "state", formatJSON},
	{"settxfee", 0, "amount", formatJSON},
	{"setwalletflag", 1, "value", formatJSON},
	{"simulaterawtransaction", 0, "rawtxs", formatJSON},
	{"simulaterawtransaction", 1, "options", formatJSON},
	{"simulaterawtransaction", 1, "include_watchonly", formatJSON},
	{"submitpackage", 0, "package", formatJSON},
	{"submitpackage", 1, "maxfeerate", formatJSON},
	{"submitpackage", 2, "maxburnamount", formatJSON},
	{"testmempoolaccept", 0, "rawtxs", formatJSON},
	{"testmempoolaccept", 1, "maxfeerate", formatJSON},
	{"utxoupdatepsbt", 0, "psbt", formatString},
	{"utxoupdatepsbt", 1, "descriptors", formatJSON},
	{"verifychain", 0, "checklevel", formatJSON},
	{"verifychain", 1, "nblocks", formatJSON},
	{"waitforblock", 1, "timeout", formatJSON},
	{"waitforblockheight", 0, "height", formatJSON},
	{"waitforblockheight", 1, "timeout", formatJSON},
	{"waitfornewblock", 0, "timeout", formatJSON},
	{"walletcreatefundedpsbt", 0, "inputs", formatJSON},
	{"walletcreatefundedpsbt", 1, "outputs", formatJSON},
	{"walletcreatefundedpsbt", 2, "locktime", formatJSON},
	{"walletcreatefundedpsbt", 3, "options", formatJSON},
	{"walletcreatefundedpsbt", 3, "add_inputs", formatJSON},
	{"walletcreatefundedpsbt", 3, "include_unsafe", formatJSON},
	{"walletcreatefundedpsbt", 3, "minconf", formatJSON},
	{"walletcreatefundedpsbt", 3, "maxconf", formatJSON},
	{"walletcreatefundedpsbt", 3, "changePosition", formatJSON},
	{"walletcreatefundedpsbt", 3, "includeWatching", formatJSON},
	{"walletcreatefundedpsbt", 3, "lockUnspents", formatJSON},
	{"walletcreatefundedpsbt", 3, "fee_rate", formatJSON},
	{"walletcreatefundedpsbt", 3, "feeRate", formatJSON},
	{"walletcreatefundedpsbt", 3, "subtractFeeFromOutputs", formatJSON},
	{"walletcreatefundedpsbt", 3, "conf_target", formatJSON},
	{"walletcreatefundedpsbt", 3, "replaceable", formatJSON},
	{"walletcreatefundedpsbt", 3, "solving_data", formatJSON},
	{"walletcreatefundedpsbt", 3, "max_tx_weight", formatJSON},
	{"walletcreatefundedpsbt", 4, "bip32derivs", formatJSON},
	{"walletcreatefundedpsbt", 5, "version", formatJSON},

	// descwallet's own methods.
	{"listwalletevents", 0, "after", formatJSON},
	{"listwalletevents", 1, "limit", formatJSON},
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
