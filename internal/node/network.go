package node

import (
	"fmt"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// Network is one chain the node can run on: its parameters, its name on the
// command line, the folder its files live in and its default ports.
type Network struct {
	// Name is the -chain value: main, test, testnet4, signet or regtest.
	Name string
	// Params are the network's address, key and genesis parameters.
	Params *chaincfg.Params
	// Dir is the data-dir subfolder ("" for main, as Core lays it out).
	Dir string
	// RPCPort is descwalletd's default RPC port.
	RPCPort int
	// BitcoindRPCPort and BtcdRPCPort are the chain backends' default RPC
	// ports on this network.
	BitcoindRPCPort int
	BtcdRPCPort     int
}

// Networks lists every supported network, in Core's order.
var Networks = []*Network{
	{Name: "main", Params: &chaincfg.MainNetParams, Dir: "", RPCPort: 8336,
		BitcoindRPCPort: 8332, BtcdRPCPort: 8334},
	{Name: "test", Params: &chaincfg.TestNet3Params, Dir: "testnet3", RPCPort: 18336,
		BitcoindRPCPort: 18332, BtcdRPCPort: 18334},
	{Name: "testnet4", Params: &chaincfg.TestNet4Params, Dir: "testnet4", RPCPort: 48336,
		BitcoindRPCPort: 48332, BtcdRPCPort: 48334},
	{Name: "signet", Params: &chaincfg.SigNetParams, Dir: "signet", RPCPort: 38336,
		BitcoindRPCPort: 38332, BtcdRPCPort: 38332},
	{Name: "regtest", Params: &chaincfg.RegressionNetParams, Dir: "regtest", RPCPort: 18446,
		BitcoindRPCPort: 18443, BtcdRPCPort: 18334},
}

// NetworkByName returns the network for a -chain value.
func NetworkByName(name string) (*Network, error) {
	for _, n := range Networks {
		if n.Name == name {
			return n, nil
		}
	}
	return nil, fmt.Errorf("invalid chain type %q: use main, test, testnet4, signet or regtest", name)
}
