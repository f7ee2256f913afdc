// Command descwallet-cli sends one JSON-RPC call to descwalletd and prints
// the reply, the way bitcoin-cli does for bitcoind, so that scripts written
// for one work with the other.
//
// Usage:
//
//	descwallet-cli [options] <method> [params...]
//	descwallet-cli [options] -named <method> [name=value...]
//
// Options are read from the command line and then from
// <datadir>/descwallet.conf (or -conf): -rpcconnect, -rpcport, -rpcuser,
// -rpcpassword, -rpccookiefile, -datadir, -rpcwallet, -named, -stdin,
// -stdinrpcpass, -stdinwalletpassphrase, -rpcclienttimeout, -rpcwait,
// -rpcwaittimeout, -getinfo, -color, -generate and the network switches -chain=,
// -regtest, -testnet, -testnet4 and -signet. Without -rpcpassword the client authenticates with
// the cookie descwalletd writes in the network's folder of the data
// directory (default ~/.descwallet).
//
// Parameters are strings unless the method's table entry says JSON (numbers,
// booleans, arrays, objects); see convert.go.
//
// A string result is printed bare, other results as JSON indented by two
// spaces, null not at all. An error prints "error code: N" and
// "error message:" lines on standard error and exits with the code's
// absolute value; a transport or usage failure prints "error: ..." and exits
// with 1.
package main
