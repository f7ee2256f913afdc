package sign

import (
	"bytes"

	"github.com/btcsuite/btcd/wire/v2"
)

// Coins are the previous outputs known to a signing call, by outpoint:
// Core's coins map as signrawtransactionwithkey fills it from prevtxs. An
// entry for an outpoint the transaction does not spend is harmless.
type Coins map[wire.OutPoint]*Coin

// Check is Core's test before a prevtxs entry is recorded: an outpoint
// already known with a different scriptPubKey is ErrPrevoutMismatch, with
// Core's message showing both scripts in asm form (the known one first).
// A later entry for the same outpoint with the same script replaces the
// earlier one.
func (c Coins) Check(op wire.OutPoint, pkScript []byte) error {
	if old, ok := c[op]; ok && !bytes.Equal(old.PkScript, pkScript) {
		return newError(ErrPrevoutMismatch, "Previous output scriptPubKey mismatch:\n"+
			ScriptToAsm(old.PkScript)+"\nvs:\n"+ScriptToAsm(pkScript))
	}
	return nil
}
