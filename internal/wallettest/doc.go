// Package wallettest holds daemon-level tests of descriptor wallets: a real
// descwalletd process, driven over JSON-RPC, stopped or killed in the middle
// of its work. It has no code of its own.
package wallettest
