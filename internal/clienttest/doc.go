// Package clienttest holds no code of its own: its tests drive a real
// descwalletd with real clients — descwallet-cli, btcd's rpcclient,
// python-bitcoinlib's RawProxy and the npm bitcoin-core client — and with
// call-by-call replays of what Sparrow, Specter, JoinMarket and NBXplorer
// send (their request forms, and the reply fields and error codes they
// read), to show that a client written for Bitcoin Core works against it
// unchanged.
//
// The tests build the CLI once per run, start the daemon through testenv on
// a free loopback port with its data in a temporary folder, and stop it at
// the end of each test. They are integration tests: testing.Short skips
// them. A client that is not installed fails its test with the command that
// installs it (.ci/run installs them all on a fresh Debian machine).
package clienttest
