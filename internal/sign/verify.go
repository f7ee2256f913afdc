package sign

import (
	"errors"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// VerifyFlags are the script flags inputs are verified under: btcd's
// standard flags, which are Core's STANDARD_SCRIPT_VERIFY_FLAGS.
const VerifyFlags = txscript.StandardVerifyFlags

// errSchnorrHashType and errSchnorrSize stand for Core's taproot key-path
// failures that btcd reports differently or not at all.
var (
	errSchnorrHashType = errors.New("Invalid Schnorr signature hash type")
	errSchnorrSize     = errors.New("Invalid Schnorr signature size")
)

// verify runs the script engine over this input with the given scriptSig
// and witness under the standard flags, and returns nil or the engine's
// error.
func (s *inputSigner) verify(scriptSig []byte, witness wire.TxWitness) error {
	pk := s.coin.PkScript

	// Core checks the sighash type of a taproot key-path signature before
	// hashing, and cannot hash at all without every spent output; btcd
	// differs on both, so these cases are decided here.
	if isTaproot(pk) && len(scriptSig) == 0 && len(witness) > 0 {
		w := witness
		if len(w) >= 2 && len(w[len(w)-1]) > 0 && w[len(w)-1][0] == 0x50 {
			w = w[:len(w)-1]
		}
		if len(w) == 1 {
			sig := w[0]
			switch {
			case len(sig) != 64 && len(sig) != 65:
				return errSchnorrSize
			case len(sig) == 65 && !s.validTaprootHashType(sig[64]):
				return errSchnorrHashType
			case !s.ctx.allKnown:
				return errSchnorrHashType
			}
		}
	}

	if s.fastAccept(scriptSig, witness) {
		return nil
	}

	orig := s.view.TxIn[s.idx]
	s.view.TxIn[s.idx] = &wire.TxIn{
		PreviousOutPoint: orig.PreviousOutPoint,
		SignatureScript:  scriptSig,
		Witness:          witness,
		Sequence:         orig.Sequence,
	}
	defer func() { s.view.TxIn[s.idx] = orig }()

	vm, err := txscript.NewEngine(pk, s.view, s.idx, VerifyFlags, s.ctx.sigCache,
		s.ctx.sigHashes, s.coin.Amount, s.ctx.fetcher)
	if err != nil {
		return s.inCoreOrder(err, scriptSig, witness)
	}
	return s.inCoreOrder(vm.Execute(), scriptSig, witness)
}

// validTaprootHashType reports whether an explicit taproot hash-type byte
// is one BIP 341 defines and, for SINGLE, has a matching output.
func (s *inputSigner) validTaprootHashType(ht byte) bool {
	switch ht {
	case 0x01, 0x02, 0x81, 0x82:
		return true
	case 0x03, 0x83:
		return s.idx < len(s.ctx.tx.TxOut)
	}
	return false
}

// checkECDSA reports whether sig (with its hash-type byte) is a valid
// signature by pub of this input for scriptCode, as Core's signature
// checker decides: lax DER, any S.
func (s *inputSigner) checkECDSA(sig, pub, scriptCode []byte, sv sigVersion) bool {
	if len(sig) == 0 {
		return false
	}
	key, err := btcec.ParsePubKey(pub)
	if err != nil {
		return false
	}
	parsed, err := ecdsa.ParseSignature(sig[:len(sig)-1])
	if err != nil {
		return false
	}
	ht := txscript.SigHashType(sig[len(sig)-1])
	hash, err := s.sigHash(scriptCode, ht, sv)
	if err != nil {
		return false
	}
	return parsed.Verify(hash, key)
}

// coreScriptError returns Core's text for a verification failure: the two
// RPC-specific texts for a stack underflow and a failed CHECK(MULTI)SIG with
// a non-empty signature, otherwise Core's ScriptErrorString.
func coreScriptError(err error) string {
	switch err {
	case errSchnorrHashType, errSchnorrSize:
		return err.Error()
	}
	var se txscript.Error
	if !errors.As(err, &se) {
		return scriptErrUnknown
	}
	switch se.ErrorCode {
	case txscript.ErrInvalidStackOperation:
		return MsgInvalidStackSize
	case txscript.ErrNullFail:
		return MsgNeedMoreSignature
	}
	if msg, ok := scriptErrorText[se.ErrorCode]; ok {
		return msg
	}
	return scriptErrUnknown
}
