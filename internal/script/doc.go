// Package script classifies output scripts the way Bitcoin Core's Solver does
// and builds the standard output templates.
//
// # Model
//
// A script is a byte string of opcodes and data pushes. Solve recognises the
// standard templates and returns their Class, named exactly as Core names its
// TxoutType values in RPC output ("pubkeyhash", "witness_v0_keyhash", ...),
// together with Core's "solutions": the pieces of the template a signer or a
// descriptor inference needs.
//
//	Class                 solutions
//	pubkey                [pubkey]
//	pubkeyhash            [20-byte hash]
//	scripthash            [20-byte hash]
//	multisig              [m, pubkey1, ..., pubkeyN, n] (m and n one byte each)
//	witness_v0_keyhash    [20-byte program]
//	witness_v0_scripthash [32-byte program]
//	witness_v1_taproot    [32-byte program]
//	witness_unknown       [version (one byte), program]
//	anchor, nulldata      none
//	nonstandard           none
//
// Templates are tried in Core's order: P2SH first, then witness programs
// (v0 with a 20- or 32-byte program, v1 with 32 bytes, the pay-to-anchor
// program, any other version as witness_unknown; a v0 program of any other
// length is nonstandard), then OP_RETURN followed by push-only data, then
// bare public keys, P2PKH and bare multisig. A public key in P2PK or multisig
// only needs a plausible size for its prefix byte (33 bytes for 02/03, 65 for
// 04/06/07); it is not checked to be on the curve, as in Core. Multisig
// thresholds and key counts are at most 20 and may be written as OP_n or as a
// minimal number push.
//
// The builders (PayToPubKeyHash, PayToWitnessScriptHash, PayToMultisig,
// ...) produce the canonical scripts Core produces for the same
// destinations; a Builder assembles other scripts with Core's push rules. NextOp walks a
// script one opcode at a time with Core's parsing rules, and IsPushOnly,
// IsWitnessProgram and MatchMultiA answer the template questions descriptor
// inference asks.
//
// # Errors
//
// Solve never fails: anything it does not recognise is Nonstandard. The
// builders that take caller-controlled counts (PayToMultisig) return an
// *Error whose Kind is one of the ErrorKind constants, for use with
// errors.Is. The
// hash and key builders panic when given a slice of the wrong length, which
// is a programming error.
//
// # Concurrency
//
// Every function is safe for concurrent use; a Builder is not.
package script
