package sign

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/descwallet/descwallet/descriptor/miniscript"
	"github.com/descwallet/descwallet/internal/script"
)

// Core's sequence-lock constants (BIP 68/112) and the locktime threshold.
const (
	seqFinal        = 0xffffffff
	seqDisableFlag  = 1 << 31
	seqTypeFlag     = 1 << 22
	seqMask         = 0x0000ffff
	lockTimeThresh  = 500000000
	minCSVTxVersion = 2
)

// AddPreimage records a hash preimage; miniscript hash fragments
// (sha256, hash256, ripemd160, hash160) whose digest it matches can then be
// satisfied.
func (p *Provider) AddPreimage(preimage []byte) {
	if p.preimages == nil {
		p.preimages = map[string][]byte{}
	}
	pre := append([]byte(nil), preimage...)
	s := sha256.Sum256(pre)
	d := sha256.Sum256(s[:])
	p.preimages["sha256:"+string(s[:])] = pre
	p.preimages["hash256:"+string(d[:])] = pre
	r := script.RIPEMD160(pre)
	h := script.RIPEMD160(s[:])
	p.preimages["ripemd160:"+string(r[:])] = pre
	p.preimages["hash160:"+string(h[:])] = pre
}

// wshSatisfier is Core's WshSatisfier: it satisfies a P2WSH witnessScript
// that decodes as miniscript, with the provider's keys and preimages and
// the spending input's timelocks.
type wshSatisfier struct {
	s    *inputSigner
	ws   []byte
	keys [][]byte
}

func (w *wshSatisfier) add(pub []byte) (int, bool) {
	w.keys = append(w.keys, append([]byte(nil), pub...))
	return len(w.keys) - 1, true
}

// FromPKBytes accepts a key whose encoding is consistent with its first
// byte (Core's CPubKey::IsValid).
func (w *wshSatisfier) FromPKBytes(pub []byte) (int, bool) {
	if len(pub) != 33 || (pub[0] != 2 && pub[0] != 3) {
		return 0, false
	}
	return w.add(pub)
}

func (w *wshSatisfier) FromPKHBytes(h []byte) (int, bool) {
	var id [20]byte
	copy(id[:], h)
	pub, ok := w.s.pubKey(id)
	if !ok {
		return 0, false
	}
	return w.add(pub)
}

func (w *wshSatisfier) KeyID(i int) string { return hex.EncodeToString(w.keys[i]) }

func (w *wshSatisfier) PKBytes(i int) []byte { return w.keys[i] }

func (w *wshSatisfier) Sign(i int) ([]byte, miniscript.Availability) {
	sig, ok := w.s.createSig(w.keys[i], w.ws, sigWitnessV0)
	if !ok {
		return nil, miniscript.No
	}
	return sig, miniscript.Yes
}

func (w *wshSatisfier) Preimage(fr miniscript.Fragment, hash []byte) ([]byte, miniscript.Availability) {
	name := map[miniscript.Fragment]string{miniscript.Sha256: "sha256:", miniscript.Hash256: "hash256:",
		miniscript.Ripemd160: "ripemd160:", miniscript.Hash160: "hash160:"}[fr]
	if pre, ok := w.s.ctx.provider.preimages[name+string(hash)]; ok {
		return pre, miniscript.Yes
	}
	return nil, miniscript.No
}

// CheckOlder is the script engine's sequence check (BIP 112) for the
// spending input.
func (w *wshSatisfier) CheckOlder(n uint32) bool {
	tx := w.s.view
	seq := tx.TxIn[w.s.idx].Sequence
	if tx.Version < minCSVTxVersion || seq&seqDisableFlag != 0 {
		return false
	}
	mask := uint32(seqTypeFlag | seqMask)
	have, want := seq&mask, n&mask
	if (have < seqTypeFlag) != (want < seqTypeFlag) {
		return false
	}
	return want <= have
}

// CheckAfter is the script engine's locktime check (BIP 65) for the
// spending transaction.
func (w *wshSatisfier) CheckAfter(n uint32) bool {
	tx := w.s.view
	lt := tx.LockTime
	if (lt < lockTimeThresh) != (n < lockTimeThresh) {
		return false
	}
	if n > lt {
		return false
	}
	return tx.TxIn[w.s.idx].Sequence != seqFinal
}

// satisfyMiniscript returns the witness stack (without the script) that
// satisfies witnessScript ws as miniscript, as Core's fallback in
// ProduceSignature for witness scripts that are not standard templates.
func (s *inputSigner) satisfyMiniscript(ws []byte) ([][]byte, bool) {
	w := &wshSatisfier{s: s, ws: ws}
	n := miniscript.Decode(ws, miniscript.P2WSH, w)
	if n == nil {
		return nil, false
	}
	st, av := n.Satisfy(w)
	if av != miniscript.Yes {
		return nil, false
	}
	return st, true
}
