package sign

import (
	"bytes"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/script"
)

// This file accepts, without btcd's script engine, the inputs of the
// single-key templates the signer produces most (P2WPKH, P2PKH,
// P2SH-P2WPKH and taproot key-path spends) when they carry a signature made
// and verified in this call.
// It only ever accepts: anything it does not recognize in its canonical
// form goes to the engine, which then decides and names the error. So its
// answer is the engine's whenever it answers at all: every step the engine
// takes for these templates under VerifyFlags is taken here, in a form at
// least as strict (fastverify_test.go checks it against the engine on
// valid, altered and random inputs, and FuzzFastAccept keeps checking).
//
// What the engine does for these templates under the standard flags, and
// where it is done here:
//
//   - P2WPKH: the scriptSig must be empty; the witness must hold exactly
//     two items, each at most 520 bytes; they run as the stack of
//     DUP HASH160 <program> EQUALVERIFY CHECKSIG.
//   - P2SH-P2WPKH: the scriptSig must be exactly the canonical push of the
//     22-byte witness program whose HASH160 is the P2SH hash; the witness
//     is then checked as for P2WPKH.
//   - P2PKH: the witness must be empty; the scriptSig push-only, minimally
//     pushed, and leaving [signature, public key]; the output script then
//     runs on that stack and must leave exactly one true item.
//   - taproot key path: the scriptSig must be empty; the witness one item
//     (two or more would be a script path or carry an annex), a 64-byte
//     BIP 340 signature (SIGHASH_DEFAULT) or 65 bytes whose last is a
//     defined hash type other than 0; the signature verifies with the
//     output key over the BIP 341 hash, again through the cache.
//   - CHECKSIG, in the others: the hash type is one of the six defined ones, the
//     signature is strict DER with a low S, the key is 33 bytes (0x02 or
//     0x03) or, outside witness v0, 65 bytes (0x04); HASH160 of the key is
//     the program or hash; the signature verifies against the signature
//     hash of the input (BIP 143 for witness v0, the legacy hash otherwise)
//     under its hash type, which the engine takes from the call's
//     signature cache when it finds the same hash, signature and key there.
//
// Here a signature is accepted only through that same cache (an entry is
// a signature verified against its key over that hash in this call, see
// seedVerified), and, for ECDSA, only for a key the provider holds, whose
// bytes are those of its parsed public key: the engine would parse the
// same bytes into a valid key. A signature not in the cache goes to the
// engine.

// maxFastSig is the longest signature (DER and hash type) the fast check
// takes: 72 bytes of DER plus the hash type.
const maxFastSig = 73

// fastAccept reports whether the engine would accept this input with the
// given scriptSig and witness, deciding only the canonical forms of the
// P2WPKH, P2SH-P2WPKH, P2PKH and taproot key-path templates whose
// signature is in the call's signature cache; false means "ask the
// engine", not "invalid".
func (s *inputSigner) fastAccept(scriptSig []byte, witness wire.TxWitness) bool {
	if s.ctx.noFastVerify {
		return false
	}
	pk := s.coin.PkScript
	switch {
	case len(pk) == 22 && pk[0] == 0x00 && pk[1] == 0x14:
		if len(scriptSig) != 0 {
			return false
		}
		return s.fastWitnessKeyHash(pk[2:22], witness)

	case len(pk) == 23 && pk[0] == 0xa9 && pk[1] == 0x14 && pk[22] == 0x87:
		// The scriptSig is OP_DATA_22 <0 <20 bytes>>, and nothing else.
		if len(scriptSig) != 23 || scriptSig[0] != 22 || scriptSig[1] != 0x00 || scriptSig[2] != 0x14 {
			return false
		}
		if script.Hash160(scriptSig[1:]) != [20]byte(pk[2:22]) {
			return false
		}
		return s.fastWitnessKeyHash(scriptSig[3:23], witness)

	case isTaproot(pk):
		return s.fastTaprootKeyPath(pk[2:34], scriptSig, witness)

	case len(pk) == 25 && pk[0] == 0x76 && pk[1] == 0xa9 && pk[2] == 0x14 && pk[23] == 0x88 && pk[24] == 0xac:
		if len(witness) != 0 {
			return false
		}
		// <sig> <pub>, each a direct push (opcode = length): minimal for
		// these lengths, and push-only.
		if len(scriptSig) < 2 {
			return false
		}
		ls := int(scriptSig[0])
		if ls < 9 || ls > maxFastSig || len(scriptSig) < 2+ls {
			return false
		}
		sig := scriptSig[1 : 1+ls]
		lp := int(scriptSig[1+ls])
		if lp != 33 && lp != 65 || len(scriptSig) != 2+ls+lp {
			return false
		}
		pub := scriptSig[2+ls:]
		// A 20-byte signature push could be found in the output script
		// (Core's FindAndDelete, refused under CONST_SCRIPTCODE); the
		// DER signatures made here are longer.
		if ls == 20 {
			return false
		}
		return s.fastCheckSig(sig, pub, pk[3:23], pk, sigBase)
	}
	return false
}

// fastTaprootKeyPath is a taproot key-path spend of the output key
// outputKey: an empty scriptSig, a witness of one item (so no annex) that
// is a 64-byte signature or a 65-byte one with a defined hash type (SINGLE
// with its output), every spent output known, and the BIP 341 signature
// hash of that type with the signature and the output key in the call's
// cache. The engine would parse the key and the signature, hash, and find
// the same entry; an entry only exists for a signature that verified with
// that key (seedVerified, or the engine's own verification), so both parse.
func (s *inputSigner) fastTaprootKeyPath(outputKey, scriptSig []byte, witness wire.TxWitness) bool {
	if len(scriptSig) != 0 || len(witness) != 1 || !s.ctx.allKnown {
		return false
	}
	sig := witness[0]
	ht := SigHashDefault
	switch {
	case len(sig) == 64:
	case len(sig) == 65 && sig[64] != 0 && s.validTaprootHashType(sig[64]):
		ht = txscript.SigHashType(sig[64])
	default:
		return false
	}
	hash, err := s.taprootSigHash(ht)
	if err != nil {
		return false
	}
	var h chainhash.Hash
	copy(h[:], hash)
	return s.ctx.sigCache.Exists(h, sig, outputKey)
}

// fastWitnessKeyHash is the witness half of P2WPKH and P2SH-P2WPKH.
func (s *inputSigner) fastWitnessKeyHash(program []byte, witness wire.TxWitness) bool {
	if len(witness) != 2 {
		return false
	}
	sig, pub := witness[0], witness[1]
	if len(pub) != 33 || len(sig) < 9 || len(sig) > maxFastSig {
		return false
	}
	return s.fastCheckSig(sig, pub, program, script.PayToPubKeyHash(program), sigWitnessV0)
}

// fastCheckSig is CHECKSIG of sig (with its hash-type byte) by pub where
// HASH160(pub) must be id, over scriptCode: true only when the engine's
// checks pass in their strictest form and the signature is in the call's
// cache for this very hash and key.
func (s *inputSigner) fastCheckSig(sig, pub, id, scriptCode []byte, sv sigVersion) bool {
	switch {
	case len(pub) == 33 && (pub[0] == 0x02 || pub[0] == 0x03):
	case len(pub) == 65 && pub[0] == 0x04 && sv == sigBase:
	default:
		return false
	}
	keyID := script.Hash160(pub)
	if !bytes.Equal(keyID[:], id) {
		return false
	}
	k := s.ctx.provider.keyByID(keyID)
	if k == nil || !bytes.Equal(k.pubBytes, pub) {
		return false
	}
	ht := txscript.SigHashType(sig[len(sig)-1])
	if base := ht &^ txscript.SigHashAnyOneCanPay; base < txscript.SigHashAll || base > txscript.SigHashSingle {
		return false
	}
	der := sig[:len(sig)-1]
	if !strictLowSDER(der) {
		return false
	}
	hash, err := s.sigHash(scriptCode, ht, sv)
	if err != nil {
		return false
	}
	var h chainhash.Hash
	copy(h[:], hash)
	return s.ctx.sigCache.Exists(h, der, pub)
}

// halfOrder is (n-1)/2, big-endian: the largest low S.
var halfOrder = [32]byte{
	0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
}

// strictLowSDER reports whether der is a strict DER signature (BIP 66:
// 0x30 len 0x02 rlen R 0x02 slen S, minimal positive integers) of 8 to 72
// bytes whose S is at most half the group order, as the engine requires
// under DERSIG, STRICTENC and LOW_S. R and S must also be non-zero and
// at most 32 bytes of value, which every valid signature meets.
func strictLowSDER(der []byte) bool {
	n := len(der)
	if n < 8 || n > 72 || der[0] != 0x30 || int(der[1]) != n-2 || der[2] != 0x02 {
		return false
	}
	rLen := int(der[3])
	if rLen == 0 || 4+rLen+2 > n || der[4+rLen] != 0x02 {
		return false
	}
	sLen := int(der[5+rLen])
	if sLen == 0 || 6+rLen+sLen != n {
		return false
	}
	r, sv := der[4:4+rLen], der[6+rLen:]
	if !minimalPositive(r) || !minimalPositive(sv) {
		return false
	}
	if sv[0] == 0 {
		sv = sv[1:]
	}
	if len(sv) > 32 {
		return false
	}
	var s32 [32]byte
	copy(s32[32-len(sv):], sv)
	return bytes.Compare(s32[:], halfOrder[:]) <= 0
}

// minimalPositive reports whether b is the minimal big-endian two's
// complement encoding of a positive integer of at most 32 bytes of value.
func minimalPositive(b []byte) bool {
	if len(b) == 0 || b[0]&0x80 != 0 {
		return false
	}
	if len(b) > 1 && b[0] == 0 && b[1]&0x80 == 0 {
		return false
	}
	if len(b) == 1 && b[0] == 0 {
		return false
	}
	return len(b) <= 32 || len(b) == 33 && b[0] == 0
}
