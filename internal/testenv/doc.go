// Package testenv is the integration-test harness: it builds and starts a
// pinned btcd on regtest, starts the descwallet daemon as a subprocess, and
// talks to both over JSON-RPC.
//
// # Model
//
// Every process runs on free loopback ports with its data and log folders in
// the test's temporary directory, and is stopped by t.Cleanup. Nothing waits
// with bare sleeps: readiness and chain state are polled with deadlines
// (see Eventually).
//
// btcd is built once, from the version go.mod records as a tool dependency,
// into <repo>/.cache/tools/btcd-<version> (the path `make btcd` uses); a file
// lock keeps test binaries running in parallel from building it twice. The
// environment variable DESCWALLET_BTCD names a prebuilt btcd to use instead.
//
// Test keys are deterministic: NewKey derives a regtest key, its WIF and its
// addresses from a seed string, so coins can be mined to a key whose private
// half the test knows.
//
// # Errors
//
// JSON-RPC failures are returned as *RPCError carrying the server's code and
// message; transport failures are returned as ordinary errors. The Must
// helpers fail the test instead of returning an error.
package testenv
