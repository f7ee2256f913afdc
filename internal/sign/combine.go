package sign

import (
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// CombineTransaction merges the signatures of several versions of one
// transaction, as Core's combinerawtransaction does: the result starts as a
// copy of the first version; for each of its inputs, what every version
// holds at that position is examined against the input's previous output
// (Core's DataFromTransaction), the first version whose input already
// verifies is taken whole, and otherwise the valid signatures and scripts
// found in all versions are pooled and the input is rebuilt from them
// without any key (Core's ProduceSignature with no signing provider). coins
// must hold the previous output of every input of the first version; the
// caller reports a missing one. The versions are not modified.
func CombineTransaction(versions []*wire.MsgTx, coins map[wire.OutPoint]*Coin) *wire.MsgTx {
	merged := versions[0].Copy()
	none := NewProvider()
	ctx := newTxContext(merged, coins, none, txscript.SigHashAll)
	vctx := make([]*txContext, len(versions))
	for v, tx := range versions {
		vctx[v] = newTxContext(tx, coins, none, txscript.SigHashAll)
	}
	for i := range merged.TxIn {
		coin := ctx.coins[i]
		if coin == nil {
			continue
		}
		s := &inputSigner{ctx: ctx, idx: i, view: ctx.newView(), coin: coin, sigs: make(map[[20]byte]sigPair)}
		for v, tx := range versions {
			if len(tx.TxIn) <= i {
				continue
			}
			vs := &inputSigner{ctx: vctx[v], idx: i, view: vctx[v].newView(), coin: coin, sigs: make(map[[20]byte]sigPair)}
			vs.extract(tx.TxIn[i].SignatureScript, tx.TxIn[i].Witness)
			s.mergeFrom(vs)
		}
		if !s.complete {
			s.scriptSig, s.witness = nil, nil
		}
		s.produce()
		merged.TxIn[i].SignatureScript = s.scriptSig
		merged.TxIn[i].Witness = s.witness
	}
	return merged
}

// mergeFrom is Core's SignatureData::MergeSignatureData: a complete input
// stays as it is, a complete other one replaces it, otherwise the other's
// scripts fill in missing ones and its signatures join.
func (s *inputSigner) mergeFrom(o *inputSigner) {
	if s.complete {
		return
	}
	if o.complete {
		s.complete = true
		s.scriptSig, s.witness = o.scriptSig, o.witness
		s.redeemScript, s.witnessScript = o.redeemScript, o.witnessScript
		s.sigs = o.sigs
		return
	}
	if len(s.redeemScript) == 0 && len(o.redeemScript) > 0 {
		s.redeemScript = o.redeemScript
	}
	if len(s.witnessScript) == 0 && len(o.witnessScript) > 0 {
		s.witnessScript = o.witnessScript
	}
	for id, p := range o.sigs {
		if _, ok := s.sigs[id]; !ok {
			s.sigs[id] = p
		}
	}
}
