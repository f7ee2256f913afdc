package wallet

import (
	"strings"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// checkNetwork compares the network a wallet file records with the node's.
// A file that records none (written before the network was recorded) is
// accepted when the extended keys of its public descriptors belong to the
// node's kind of network (xpub for mainnet, tpub for the test networks,
// which share it); record then tells the caller to record the network.
// The error never quotes the file's content.
func checkNetwork(snap *Snapshot, net *chaincfg.Params) (record bool, err error) {
	if v, ok := snap.Meta[metaNetwork]; ok {
		if string(v) != net.Name {
			return false, crossChainErr(string(v), net.Name)
		}
		return false, nil
	}
	mainnet := net.Name == chaincfg.MainNetParams.Name
	for _, d := range snap.Descriptors {
		hasMain, hasTest := extendedKeyNets(d.Public)
		if hasMain && !mainnet {
			return false, crossChainErr(chaincfg.MainNetParams.Name, net.Name)
		}
		if hasTest && mainnet {
			return false, crossChainErr("a test network", net.Name)
		}
	}
	return true, nil
}

// extendedKeyNets reports whether the descriptor text holds extended public
// keys of mainnet (xpub...) or of the test networks (tpub...). Key
// expressions start after an opening parenthesis, a comma, a closing
// origin bracket or a brace; nothing else in a public descriptor (hex
// keys, origins, paths, hashes) can start with those letters there.
func extendedKeyNets(desc string) (hasMain, hasTest bool) {
	for i := 0; i+4 <= len(desc); i++ {
		if i > 0 {
			switch desc[i-1] {
			case '(', ',', ']', '{':
			default:
				continue
			}
		}
		switch {
		case strings.HasPrefix(desc[i:], "xpub"):
			hasMain = true
		case strings.HasPrefix(desc[i:], "tpub"):
			hasTest = true
		}
	}
	return hasMain, hasTest
}

func crossChainErr(walletNet, nodeNet string) error {
	return walletErr(ErrWallet, "Wallet loading failed. Wallet files should not be reused across chains. "+
		"This wallet is for "+walletNet+", the node runs on "+nodeNet+".")
}
