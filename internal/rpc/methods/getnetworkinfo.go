package methods

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
)

// Version is descwallet's release, shown in getnetworkinfo's subversion.
const Version = "0.1.0"

// coreVersion is the Bitcoin Core release whose RPC descwallet follows, as
// getnetworkinfo's version reports it (clients check it).
const coreVersion = 300000

// coreRelease is coreVersion as Core writes it in its user agent.
const coreRelease = "30.0.0"

// subversion is getnetworkinfo's user agent: Core's, then descwallet's, as
// BIP 14 stacks the agents a program is built on. Clients read Core's
// release from it: btcd's rpcclient (LND, btcwallet and other Go programs)
// takes the version after "/Satoshi:" and, without it, speaks to a
// pre-0.19 bitcoind (sendrawtransaction with allowhighfees, which Core v30
// refuses, and no testmempoolaccept).
const subversion = "/Satoshi:" + coreRelease + "/descwallet:" + Version + "/"

// networkInfo is getnetworkinfo's result in Core's field order, for a btcd
// backend or none.
type networkInfo struct {
	Version            int           `json:"version"`
	Subversion         string        `json:"subversion"`
	ProtocolVersion    int           `json:"protocolversion"`
	LocalServices      string        `json:"localservices"`
	LocalServicesNames []string      `json:"localservicesnames"`
	LocalRelay         bool          `json:"localrelay"`
	TimeOffset         int64         `json:"timeoffset"`
	NetworkActive      bool          `json:"networkactive"`
	Connections        int64         `json:"connections"`
	ConnectionsIn      int64         `json:"connections_in"`
	ConnectionsOut     int64         `json:"connections_out"`
	Networks           []networkLine `json:"networks"`
	RelayFee           rpc.Amount    `json:"relayfee"`
	IncrementalFee     rpc.Amount    `json:"incrementalfee"`
	LocalAddresses     []any         `json:"localaddresses"`
	Warnings           []string      `json:"warnings"`
}

// networkLine is one element of getnetworkinfo's networks.
type networkLine struct {
	Name                      string `json:"name"`
	Limited                   bool   `json:"limited"`
	Reachable                 bool   `json:"reachable"`
	Proxy                     string `json:"proxy"`
	ProxyRandomizeCredentials bool   `json:"proxy_randomize_credentials"`
}

// btcdRelayFee is btcd's default minimum relay fee rate (sat/kvB).
const btcdRelayFee = 1000

// newGetNetworkInfo returns getnetworkinfo. descwallet answers it itself
// (version 300000 and its own subversion); with bitcoind the other fields
// are bitcoind's, with btcd the connection count is btcd's, and without a
// backend it reports no connections.
func newGetNetworkInfo(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getnetworkinfo",
		Category:    "network",
		Description: "Returns the node's version and the state of its chain backend's network.",
		Result:      `{ "version", "subversion", "protocolversion", "localservices", ..., "connections", ..., "relayfee", ... }`,
		Examples:    []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			info := networkInfo{Version: coreVersion, Subversion: subversion, ProtocolVersion: 70016,
				LocalServices: "0000000000000000", LocalServicesNames: []string{},
				Networks: []networkLine{}, RelayFee: btcdRelayFee, IncrementalFee: btcdRelayFee,
				LocalAddresses: []any{}, Warnings: []string{}}
			if d.Chain == nil || d.Chain.Backend() == nil {
				return info, nil
			}
			b := d.Chain.Backend()
			if b.Kind() == chain.KindBitcoind {
				res, err := b.Call(ctx, "getnetworkinfo", nil)
				if err != nil {
					return nil, backendError(err)
				}
				return replaceMembers(res, map[string]any{"version": coreVersion, "subversion": subversion})
			}
			n, err := b.ConnectionCount(ctx)
			if err != nil {
				return nil, backendError(err)
			}
			info.NetworkActive, info.LocalRelay = true, true
			info.Connections, info.ConnectionsOut = n, n
			return info, nil
		},
	}
}

// replaceMembers returns the JSON object obj with the values of the given
// members replaced, keeping the members' order.
func replaceMembers(obj json.RawMessage, repl map[string]any) (rpc.RawJSON, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, rpc.NewError(rpc.CodeMisc, "chain backend: getnetworkinfo: result is not an object")
	}
	out := []byte{'{'}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, rpc.NewError(rpc.CodeMisc, "chain backend: getnetworkinfo: "+err.Error())
		}
		key, _ := t.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, rpc.NewError(rpc.CodeMisc, "chain backend: getnetworkinfo: "+err.Error())
		}
		if v, ok := repl[key]; ok {
			val, _ = json.Marshal(v)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(key)
		out = append(append(append(out, k...), ':'), val...)
	}
	return rpc.RawJSON(append(out, '}')), nil
}
