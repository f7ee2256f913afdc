// Package node wires descwallet together and runs it: configuration
// (bitcoind-style flags and <datadir>/descwallet.conf, the command line
// winning), the network table, the data dir laid out as Core lays out its
// own (mainnet at the root; testnet3/, testnet4/, signet/, regtest/), the
// subsystem loggers, the wallet manager and the RPC server.
//
// # Model
//
// LoadConfig turns arguments into a Config; New and Start bring a Node up in
// this order: data dir and its lock, log, credentials, wallets, RPC
// listeners, cookie, serving. Stop undoes it in reverse: the RPC server
// (running calls finish), wallets, the cookie (removed), the log, the lock.
// Run is the daemon's main: it adds SIGINT/SIGTERM and the stop call, and
// turns start-up failures (port in use, unusable data dir, malformed
// -rpcauth, unknown option) into a message on stderr and exit code 1.
//
// # Logging
//
// Logs holds one log/slog logger per subsystem (RPCS, WLLT, DESC, SCAN,
// STOR, NODE), writing "time LEVEL [TAG] message key=value" lines to
// <network dir>/debug.log and, with -printtoconsole, to stdout. Levels are
// info by default; -debug turns on debug for all or one subsystem.
//
// # Errors
//
// Start returns plain errors with a message meant for the operator; they
// are printed as "Error: <message>".
package node
