// Package sign signs transaction inputs with given keys and scripts, the way
// Bitcoin Core's signrawtransactionwithkey does, byte for byte.
//
// # Model
//
// A Provider holds the keys (by key id, HASH160 of the public key as the WIF
// serializes it, and by X coordinate for taproot) and the redeemScripts and
// witnessScripts (by HASH160) a call may use. Coins maps each outpoint being
// spent to its script and amount; an unknown amount is MaxMoney, Core's
// sentinel. SignTransaction then follows Core's SignTransaction input by
// input:
//
//   - what the input already holds is examined first (Core's
//     DataFromTransaction): an input that verifies is complete and left
//     alone; otherwise its valid signatures, its redeemScript and its
//     witnessScript are kept for reuse, which is how a multisig is completed
//     across calls;
//   - a satisfaction is produced (Core's ProduceSignature and SignStep) for
//     P2PK, P2PKH, bare multisig, P2SH of any of these, P2WPKH, P2WSH and
//     P2SH-P2WSH of the same (miniscript witnessScripts included), and
//     taproot key and script paths;
//   - every incomplete input is verified with btcd's script engine under the
//     standard flags and its failure reported with Core's text.
//
// Every signature made here is verified against its public key before it
// is used (ECDSA with secp.VerifyECDSA, a faster verifier of public data
// tested and fuzzed against the library's ecdsa.Signature.Verify; BIP 340
// with secp.VerifySchnorr, tested and fuzzed against the library's
// schnorr.Signature.Verify), as Core's CKey::Sign and BIP 340 require; one that
// fails (a fault while computing the nonce point, say) is refused and the
// input is left unsigned for that key, as in Core. A verified signature is
// recorded in a signature cache for this call only, under the signature
// hash it was verified against, its bytes and the key bytes of the script.
// The engine then runs every input and checks every script rule and
// encoding; it computes each signature hash itself and takes a signature
// from the cache only when hash, signature and key all match, so each new
// signature is verified once, not twice as in Core, and anything else
// (signatures already in the input, a signature over a wrong hash, an
// altered one) is verified in full. For the canonical forms of P2WPKH,
// P2SH-P2WPKH, P2PKH and taproot key-path inputs whose signature is in
// that cache, the engine's steps are taken directly (fastverify.go:
// program or hash, encodings, signature hash, cache); such a check only
// accepts, and
// anything else goes to the engine, so the results are the engine's
// (tested against it on altered and random inputs, and fuzzed).
//
// Secrets are handled in constant time: every operation on a private key,
// a nonce or a point derived from one uses the library's constant-time
// arithmetic, secp.ScalarBaseMultConst (k·G) and secp.InvertScalar, never
// math/big or the library's variable-time scalar multiplications, which
// serve public data only (the MuSig2 aggregation) (internal/archtest walks
// the call graph to keep it so), and buffers that held such values are
// cleared.
//
// Signatures are Core's: ECDSA with the RFC 6979 nonce, low S and Core's
// low-R grinding (SignECDSA, which also verifies), and BIP 340 Schnorr
// with 32 zero bytes of auxiliary randomness. Legacy (BIP 16 era), BIP 143 and BIP 341 signature
// hashes come from btcd's txscript, with the BIP 143/341 midstates built
// once per transaction.
//
// Taproot, only when every spent output is known. As in Core's SignTaproot,
// the key path comes first: the internal key of the output's spend data
// (Provider.AddTaprootSpendData) tweaked by its merkle root, then a key whose
// X coordinate is the output key. Unlike Core (its issue #27017), the
// internal key of a BIP 86 output (no script tree) also signs without spend
// data: it is tweaked as BIP 86 prescribes. Otherwise each BIP 342 leaf of
// the spend data is satisfied as miniscript (BIP 342 signature hash, BIP 340
// signatures) and the smallest witness (satisfaction, leaf script, shortest
// control block) is taken. Without spend data, as in signrawtransactionwithkey,
// script paths are never produced.
//
// # PSBT inputs
//
// PSBTSigner signs the inputs of a psbt.Packet as Core's SignPSBTInput
// does (psbtsign.go): what the input holds (partial signatures, redeem and
// witness scripts, BIP 32 origins, taproot internal key, merkle root, leaf
// scripts and signatures, preimages, MuSig2 data) is read into the same
// signature data the transaction signer builds, a satisfaction is produced
// with the same steps (existing signatures reused, new ones made with the
// provider's keys), and what was learnt is written back: signatures, the
// key origins of the keys met (Origins, unless HideOrigins), taproot data,
// and the final scriptSig and witness when the input is complete and
// finalizing is asked. UpdateOutput adds scripts, origins and taproot trees
// to outputs (UpdatePSBTOutput); FinalizePSBT and FinalizeAndExtract are
// Core's keyless finalization; AnalyzeInputs runs analyzepsbt's two passes
// (the second with dummy signatures, for the size estimate). The MuSig2
// partial signatures of a key-path spend are aggregated (psbtmusig.go) when
// every participant's nonce and partial signature are present.
//
// DecodeTx reads a hex transaction as Core's signrawtransactionwithkey does;
// DecodeWIF reads a private key for a network as Core's DecodeSecret does;
// ScriptToAsm renders a script as Core's ScriptToAsmStr.
//
// # Errors
//
// Whole-call failures are *Error values whose Kind is one of the ErrorKind
// constants (ErrTxDecode, ErrInvalidKey, ErrPrevoutMismatch,
// ErrMissingAmount), for errors.Is; their descriptions are Core's messages.
// Per-input problems are not errors: SignTransaction returns them as
// InputError values carrying Core's texts, the script-error texts of Core's
// ScriptErrorString mapped from btcd's error codes, and the three texts
// MsgInputNotFound, MsgInvalidStackSize and MsgNeedMoreSignature.
//
// # Concurrency
//
// A filled Provider and Coins may be shared by concurrent calls. Within a
// call, transactions with more than 16 inputs are signed and verified by
// GOMAXPROCS goroutines, in chunks of inputs; the transaction is written
// only after all of them finish. In each chunk the P2WPKH and P2PKH inputs
// whose keys the provider holds are signed first as one batch sharing its
// constant-time inversions (the nonce points' affine forms, the nonces'
// inverses); the signatures are byte for byte those made one at a time,
// each verified with its public key, and Core's steps then take them.
// PSBTSigner.SignPSBT signs a packet's inputs the same way.
package sign
