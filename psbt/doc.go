// Package psbt reads and writes Partially Signed Bitcoin Transactions: BIP
// 174 version 0 exactly as Bitcoin Core reads and writes it, with the BIP
// 371 taproot fields and the MuSig2 fields Core reads, and BIP 370 version
// 2 (read, write, and conversion to and from version 0), which Core does
// not read.
//
// # Model
//
// A Packet holds the global map, one Input per transaction input and one
// Output per output. Known fields are typed; keyed fields are maps keyed
// as Core keys them (a partial signature by the HASH160 of its public key,
// a BIP 32 derivation by the public key, and so on), so a duplicate is
// detected as Core detects it. Proprietary and unknown fields are kept
// byte for byte under their full keys.
//
// Serialize writes Core's bytes: the fields of each map in the order Core
// writes them and, within a type, in Core's key order, whatever order they
// were read in. Like Core it writes non-witness UTXOs without witness data,
// no version field for version 0, and for an input that holds a final
// scriptSig or witness only the UTXOs, the finals and the proprietary and
// unknown fields.
//
// Decode is Core's DecodeRawPSBT: the same checks in the same order, with
// the same messages, and bounded: nothing is allocated ahead of the bytes
// that are present, and more than Core's 100 MB limit is refused unread.
// DecodeAny also reads version 2; ToV2 and ToV0 convert, and Locktime
// computes a version 2 lock time as BIP 370 prescribes. Combine is Core's
// CombinePSBTs.
//
// The package is a leaf of the module: it knows no keys, scripts or
// signing, which live in the signer that works on its inputs.
//
// # Errors
//
// Errors are *Error values whose Kind (ErrBase64, ErrMalformed,
// ErrExtraData, ErrMismatch, ErrConvert) works with errors.Is. The
// description of an ErrMalformed error is the text of the exception Core
// raises, ": iostream error" included, so that an RPC can prefix it as Core
// does ("TX decode failed ...").
//
// # Concurrency
//
// A Packet is a plain value: safe for concurrent reads, not for concurrent
// writes. Clone gives an independent copy to modify.
package psbt
