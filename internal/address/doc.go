// Package address converts between Bitcoin addresses and the scriptPubKeys
// they pay to, per network, with Bitcoin Core's rules and error messages.
//
// # Model
//
// The network is a *chaincfg.Params: its P2PKH and P2SH version bytes and its
// Bech32 HRP (bc, tb, bcrt) decide what an address means. Testnet3,
// testnet4 and signet share prefixes; regtest shares their Base58 prefixes
// but has its own HRP.
//
// Decode follows Core's DecodeDestination. A string whose first len(HRP)
// characters equal the network's HRP, ignoring case, is read as Bech32 or
// Bech32m (BIP 173/350; see package bech32) and must hold a witness
// program: version 0 with 20 or 32 bytes under Bech32, any version 1-16
// with 2 to 40 bytes under Bech32m (version 1 with 32 bytes is taproot,
// version 1 with 4e73 pay-to-anchor). Every other string is read as
// Base58Check with a 21-byte payload whose first byte is the network's P2PKH
// or P2SH version. The first reason a string fails is reported, in Core's
// order (see the ErrorKind constants).
//
// Encode follows Core's ExtractDestination and EncodeDestination: it
// classifies the script with package script and writes the canonical
// address, lower case for Bech32. Describe gives the address-type fields of
// Core's DescribeAddress (isscript, iswitness, witness_version,
// witness_program) with Core's presence rules.
//
// # Errors
//
// Decode returns an *Error. Error() is Core's exact message, which the RPC
// layer returns with code -5 (RPC_INVALID_ADDRESS_OR_KEY); Kind is one of
// the ErrorKind constants for errors.Is, and every error also matches
// ErrDecode; Locations holds the character positions Core's validateaddress
// reports in error_locations (only Bech32 decoding failures have any). A Bech32 decoding failure (ErrBech32) also
// wraps the *bech32.Error, so errors.Is(err, bech32.ErrChecksum) works.
//
// # Concurrency
//
// All functions are safe for concurrent use.
package address
