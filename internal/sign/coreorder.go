package sign

import (
	"bytes"
	"crypto/sha256"
	"errors"

	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/script"
)

// Limits of Core's interpreter that the checks below repeat.
const (
	maxElementSize = 520
	maxStackSize   = 1000
	maxScriptSize  = 10000
)

// inCoreOrder returns the error Core's interpreter (VerifyScript and
// EvalScript) meets first on this input, given the one btcd's engine
// returned. Both engines run the same checks, but in two places btcd
// reaches a later one first:
//   - it refuses a scriptSig next to a witness program before running the
//     scriptSig, where Core runs the scriptSig first (so a push in it that
//     is not minimal, or a P2SH redeem script that does not match, is what
//     Core reports);
//   - in CHECKMULTISIG it passes over the key paired with an empty
//     signature, where Core checks each key's encoding as it meets it (so
//     an uncompressed key in a witness script is what Core reports).
func (s *inputSigner) inCoreOrder(err error, scriptSig []byte, witness wire.TxWitness) error {
	var se txscript.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	switch se.ErrorCode {
	case txscript.ErrWitnessMalleated, txscript.ErrWitnessMalleatedP2SH:
		if e := pushOnlyEvalError(scriptSig); e != nil {
			return e
		}
		if pk := s.coin.PkScript; isP2SHScript(pk) {
			if redeem, ok := lastPush(scriptSig); !ok || !hashes160(redeem, pk[2:22]) {
				return txscript.Error{ErrorCode: txscript.ErrEvalFalse}
			}
		}
		return err
	}
	if e := s.multisigKeyError(scriptSig, witness); e != nil {
		return e
	}
	return err
}

// pushOnlyEvalError runs Core's EvalScript checks over a push-only
// scriptSig under the standard flags: each push at most 520 bytes and
// minimal, OP_RESERVED refused, at most 1000 stack items.
func pushOnlyEvalError(scriptSig []byte) error {
	items := 0
	for pc := 0; pc < len(scriptSig); {
		op, data, next, ok := script.NextOp(scriptSig, pc)
		if !ok {
			return txscript.Error{ErrorCode: txscript.ErrMalformedPush}
		}
		pc = next
		switch {
		case op <= script.OpPushData4:
			if len(data) > maxElementSize {
				return txscript.Error{ErrorCode: txscript.ErrElementTooBig}
			}
			if !script.CheckMinimalPush(data, op) {
				return txscript.Error{ErrorCode: txscript.ErrMinimalData}
			}
		case op == txscript.OP_RESERVED:
			return txscript.Error{ErrorCode: txscript.ErrReservedOpcode}
		case op > script.Op16:
			return nil
		}
		if items++; items > maxStackSize {
			return txscript.Error{ErrorCode: txscript.ErrStackOverflow}
		}
	}
	return nil
}

// multisigKeyError returns Core's key encoding error when this input spends
// a P2WSH (or P2SH-P2WSH) multisig whose CHECKMULTISIG, as Core runs it,
// meets a key that is not compressed while its signature is empty. Only
// the pairs before the first non-empty signature are looked at: from there
// on btcd checks each pair as Core does. It returns nil when anything
// Core checks before the loop would fail.
func (s *inputSigner) multisigKeyError(scriptSig []byte, witness wire.TxWitness) error {
	pk := s.coin.PkScript
	program := pk
	if isP2SHScript(pk) {
		redeem, ok := lastPush(scriptSig)
		if !ok || !bytes.Equal(scriptSig, script.AppendPush(nil, redeem)) ||
			!hashes160(redeem, pk[2:22]) {
			return nil
		}
		program = redeem
	} else if len(scriptSig) != 0 {
		return nil
	}
	v, prog, ok := script.IsWitnessProgram(program)
	if !ok || v != 0 || len(prog) != 32 || len(witness) == 0 {
		return nil
	}
	ws := witness[len(witness)-1]
	if h := sha256.Sum256(ws); !bytes.Equal(h[:], prog) || len(ws) > maxScriptSize {
		return nil
	}
	items := witness[:len(witness)-1]
	for _, it := range items {
		if len(it) > maxElementSize {
			return nil
		}
	}
	class, sol := script.Solve(ws)
	if class != script.Multisig {
		return nil
	}
	m, keys := int(sol[0][0]), sol[1:len(sol)-1]
	if len(items) < m+1 || len(items)+len(keys)+2 > maxStackSize {
		return nil
	}
	// Core pairs the last signature with the last key first and moves to
	// the next key when a signature does not verify; an empty one never
	// does.
	sigs := items[len(items)-m:]
	isig, ikey := len(sigs)-1, len(keys)-1
	nSigs, nKeys := m, len(keys)
	for nSigs > 0 {
		if len(sigs[isig]) != 0 {
			return nil
		}
		key := keys[ikey]
		compressed := len(key) == 33 && (key[0] == 0x02 || key[0] == 0x03)
		if !compressed && !(len(key) == 65 && key[0] == 0x04) {
			return txscript.Error{ErrorCode: txscript.ErrPubKeyType}
		}
		if !compressed {
			return txscript.Error{ErrorCode: txscript.ErrWitnessPubKeyType}
		}
		ikey--
		nKeys--
		if nSigs > nKeys {
			return nil
		}
	}
	return nil
}

// isP2SHScript reports whether pk is OP_HASH160 <20 bytes> OP_EQUAL.
func isP2SHScript(pk []byte) bool {
	return len(pk) == 23 && pk[0] == txscript.OP_HASH160 && pk[1] == 0x14 && pk[22] == txscript.OP_EQUAL
}

// lastPush returns the item the last push of a push-only script leaves on
// the stack.
func lastPush(s []byte) ([]byte, bool) {
	var last []byte
	found := false
	for pc := 0; pc < len(s); {
		op, data, next, ok := script.NextOp(s, pc)
		if !ok {
			return nil, false
		}
		if op > script.OpPushData4 {
			n, small := script.SmallIntValue(op)
			switch {
			case op == txscript.OP_1NEGATE:
				data = []byte{0x81}
			case small:
				data = script.ScriptNum(int64(n))
			default:
				return nil, false
			}
		}
		last, found, pc = data, true, next
	}
	return last, found
}

// hashes160 reports whether HASH160(data) is h.
func hashes160(data, h []byte) bool {
	d := script.Hash160(data)
	return bytes.Equal(d[:], h)
}
