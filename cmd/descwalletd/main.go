// Command descwalletd runs the descwallet node: descriptor wallets served
// over Bitcoin Core's JSON-RPC. Run it with -help for its options.
package main

import (
	"os"

	"github.com/descwallet/descwallet/internal/node"
)

func main() {
	os.Exit(node.Run(os.Args[1:]))
}
