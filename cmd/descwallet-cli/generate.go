package main

import (
	"encoding/json"
	"strings"
)

// defaultBlocks is -generate's number of blocks when none is given.
const defaultBlocks = "1"

// generate is -generate: a new address from the wallet (getnewaddress,
// through -rpcwallet), then generatetoaddress to it with the optional
// positional arguments nblocks (default 1) and maxtries. It prints
// {"address", "blocks"} as bitcoin-cli does. A bitcoind chain backend
// mines the blocks (descwalletd forwards generatetoaddress to it).
func (c *cli) generate(args []string) (string, int) {
	res, out, code, ok := c.callResult("getnewaddress", json.RawMessage("[]"))
	if !ok {
		return out, code
	}
	address, ok := res.(string)
	if !ok {
		return "error: getnewaddress did not return an address", 1
	}
	if len(args) > 2 {
		return "error: too many arguments (maximum 2 for nblocks and maxtries)", 1
	}
	if len(args) == 0 {
		args = []string{defaultBlocks}
	} else if args[0] == "0" {
		return "error: the first argument (number of blocks to generate, default: " + defaultBlocks +
			") must be an integer value greater than zero", 1
	}
	params, err := convertPositional("generatetoaddress", append([]string{args[0], address}, args[1:]...))
	if err != nil {
		return "error: " + err.Error(), 1
	}
	blocks, out, code, ok := c.callResult("generatetoaddress", params)
	if !ok {
		return out, code
	}
	var b strings.Builder
	writeJSON(&b, &object{keys: []string{"address", "blocks"}, vals: []value{address, blocks}}, 2, 0)
	return b.String(), 0
}
