package wallet

import (
	"context"
	"errors"
)

// memScripts is a ScriptStore answered from an in-memory index, whose
// lookups of one digest fail while fail reports true for the script's
// digest. A batch (a delivery's prefetch) is answered but not kept in the
// cache, so that every output is then asked about alone.
type memScripts struct {
	w    *Wallet
	x    *dbIndex
	mem  *spkIndex
	fail func(h uint64) bool
}

func (s *memScripts) LookupScripts(ctx context.Context, digests []uint64) ([]ScriptRef, error) {
	if len(digests) == 1 && s.fail(digests[0]) {
		return nil, errors.New("script index unreachable")
	}
	if len(digests) > 1 {
		s.x.forgetAll()
	}
	var out []ScriptRef
	for _, h := range digests {
		for _, v := range s.mem.lookup(h, nil) {
			slot, index := unpackRef(v)
			for _, wd := range s.w.descs {
				if wd.slot == slot {
					out = append(out, ScriptRef{Digest: h, DescriptorSeq: wd.rec.Seq, FirstIndex: int64(index)})
				}
			}
		}
	}
	return out, nil
}

// FailScriptLookups makes w ask a database-like script index (as a
// PostgreSQL wallet does) answered from the scripts it holds in memory,
// where a lookup of one of failing fails. w must derive no new script
// afterwards.
func FailScriptLookups(w *Wallet, failing ...[]byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	bad := map[uint64]bool{}
	for _, spk := range failing {
		bad[scriptDigest(spk)] = true
	}
	s := &memScripts{w: w, mem: w.index.(*spkIndex), fail: func(h uint64) bool { return bad[h] }}
	s.x = newDBIndex(w, s)
	w.index = s.x
}
