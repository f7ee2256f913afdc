package methods

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
)

// This file holds what the node calls (the blockchain, rawtransactions,
// mining, network and util methods a wallet client sends to the wallet's
// endpoint) share: with a bitcoind backend a call is forwarded as it came
// and bitcoind's answer returned as it is; with btcd it is translated into
// btcd's calls and answered in Core's shape, or refused with -32601 where
// btcd has no way to answer; with no backend it answers -9.

// errNoBackend is the answer of a node call when the node runs without a
// chain backend: Core's RPC_CLIENT_NOT_CONNECTED, with a message saying
// why (Core's own text, "Bitcoin Core is not connected!", would mislead).
var errNoBackend = rpc.NewError(rpc.CodeClientNotConnected,
	"descwallet is not connected to a chain backend (start it with -chainbackend and -chainrpcconnect)")

// errBtcdCannot is the answer of a node call btcd cannot answer.
func errBtcdCannot(method string) error {
	return rpc.NewError(rpc.CodeMethodNotFound,
		"Method not found: "+method+" is not available with the btcd chain backend")
}

// backendOf returns the node's chain backend, or errNoBackend.
func backendOf(d *Deps) (chain.Backend, error) {
	if d.Chain == nil {
		return nil, errNoBackend
	}
	b := d.Chain.Backend()
	if b == nil {
		return nil, errNoBackend
	}
	return b, nil
}

// btcdFunc answers a node call from a btcd backend.
type btcdFunc func(ctx context.Context, b chain.Backend, req *rpc.Request) (any, error)

// nodeMethod returns a node call: forwarded to bitcoind, answered by btcd
// through fn (nil: btcd cannot answer), -9 without a backend.
func nodeMethod(d *Deps, m *rpc.Method, fn btcdFunc) *rpc.Method {
	m.Handler = func(ctx context.Context, req *rpc.Request) (any, error) {
		b, err := backendOf(d)
		if err != nil {
			return nil, err
		}
		if b.Kind() == chain.KindBitcoind {
			return forward(ctx, b, req.Method, positional(req.Params))
		}
		if fn == nil {
			return nil, errBtcdCannot(req.Method)
		}
		return fn(ctx, b, req)
	}
	return m
}

// positional writes the arguments of a checked call as a JSON array.
func positional(args []json.RawMessage) json.RawMessage {
	out := []byte{'['}
	for i, a := range args {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, a...)
	}
	return append(out, ']')
}

// forward sends a call to bitcoind and returns its result, or its error
// with bitcoind's code and message.
func forward(ctx context.Context, b chain.Backend, method string, params json.RawMessage) (any, error) {
	res, err := b.Call(ctx, method, params)
	if err != nil {
		return nil, backendError(err)
	}
	return rpc.RawJSON(res), nil
}

// backendError turns a backend failure into the client's error: a
// JSON-RPC error of the backend keeps its code and message, anything else
// is mapped as every chain error is.
func backendError(err error) error {
	var re *chain.RPCError
	if errors.As(err, &re) {
		return rpc.NewError(rpc.Code(re.Code), re.Message)
	}
	return MapError(err)
}

// Core's method tables whose methods a bitcoind backend answers when
// descwallet does not (blockchain, rawtransactions, mining, network, util,
// and the mining aids of the hidden table that test frameworks call, such
// as generatetoaddress). The control and wallet tables are never forwarded:
// a wallet method descwallet lacks answers "Method not found" and never
// reaches bitcoind's own wallets.
var forwardedTables = map[string][]string{
	"blockchain": {"dumptxoutset", "getblockfrompeer", "getchainstates", "getchaintxstats",
		"getdescriptoractivity", "getdifficulty", "getmempoolancestors", "getmempoolcluster",
		"getmempooldescendants", "gettxoutsetinfo", "gettxspendingprevout", "importmempool",
		"loadtxoutset", "preciousblock", "pruneblockchain", "savemempool", "scanblocks",
		"verifychain", "waitforblock", "waitforblockheight", "waitfornewblock"},
	"rawtransactions": {"analyzepsbt", "combinepsbt", "combinerawtransaction", "converttopsbt",
		"createpsbt", "createrawtransaction", "decodepsbt", "decoderawtransaction", "decodescript",
		"descriptorprocesspsbt", "finalizepsbt", "fundrawtransaction", "joinpsbts", "submitpackage",
		"utxoupdatepsbt"},
	"mining": {"getblocktemplate", "getmininginfo", "getnetworkhashps", "getprioritisedtransactions",
		"prioritisetransaction", "submitblock", "submitheader"},
	"network": {"addnode", "clearbanned", "disconnectnode", "getaddednodeinfo", "getaddrmaninfo",
		"getconnectioncount", "getnettotals", "getnodeaddresses", "getpeerinfo", "listbanned", "ping",
		"setban", "setnetworkactive"},
	"util": {"createmultisig", "signmessagewithprivkey", "validateaddress", "verifymessage"},
	rpc.HiddenCategory: {"addconnection", "addpeeraddress", "estimaterawfee", "generate", "generateblock",
		"generatetoaddress", "generatetodescriptor", "getmempoolfeeratediagram", "getorphantxs",
		"getrawaddrman", "invalidateblock", "mockscheduler", "reconsiderblock", "sendmsgtopeer",
		"setmocktime", "syncwithvalidationinterfacequeue"},
}

// newForwarded returns the forward-only method name: its params go to
// bitcoind unchecked (bitcoind checks them), and its help is bitcoind's.
func newForwarded(d *Deps, name string) *rpc.Method {
	return &rpc.Method{
		Name:        name,
		Category:    rpc.HiddenCategory,
		Description: "Forwarded to the bitcoind chain backend (see its help there).",
		Passthrough: true,
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			b, err := backendOf(d)
			if err != nil {
				return nil, err
			}
			if b.Kind() != chain.KindBitcoind {
				return nil, errBtcdCannot(name)
			}
			return forward(ctx, b, name, req.Raw)
		},
	}
}

// forwardedMethods returns the forward-only methods: every method of the
// forwarded tables that list does not already hold.
func forwardedMethods(d *Deps, list []*rpc.Method) []*rpc.Method {
	have := make(map[string]bool, len(list))
	for _, m := range list {
		have[m.Name] = true
	}
	var out []*rpc.Method
	for _, cat := range []string{"blockchain", "rawtransactions", "mining", "network", "util", rpc.HiddenCategory} {
		for _, name := range forwardedTables[cat] {
			if !have[name] {
				have[name] = true
				out = append(out, newForwarded(d, name))
			}
		}
	}
	return out
}
