package coinselect

import (
	"bytes"
	"math/bits"
	"sort"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// This file is Core's MiniMiner (src/node/mini_miner.cpp) over a snapshot
// of the backend's mempool: the fee an unconfirmed coin must add so that
// its unconfirmed ancestors reach the target fee rate (ancestors' bump
// fees). A block is built from the clusters of the coins' transactions by
// ancestor-set fee rate until the best remaining set pays less than the
// target; what is left of a coin's ancestors must be brought up to it.

// MempoolTx is one mempool transaction as the calculation sees it: its
// virtual size, its fee and its parents in the mempool.
type MempoolTx struct {
	TxID    chainhash.Hash
	VSize   int64
	Fee     int64
	Parents []chainhash.Hash
}

// MaxBumpCluster is the most transactions the clusters of the coins may
// hold together (Core's GatherClusters limit); beyond it the bump fees
// are not computed.
const MaxBumpCluster = 500

// minerEntry is a transaction of the mock block template with its
// ancestors' totals (itself included) among those not yet mined.
type minerEntry struct {
	tx              *MempoolTx
	ancSize, ancFee int64
	descendants     []chainhash.Hash // itself included
}

// miniMiner is one calculation (Core builds a MiniMiner per call: the
// template consumes it).
type miniMiner struct {
	entries   map[chainhash.Hash]*minerEntry
	requested map[chainhash.Hash][]wire.OutPoint
	bumpFees  map[wire.OutPoint]int64
	inBlock   map[chainhash.Hash]bool
	ok        bool
}

// newMiniMiner gathers the clusters of the outpoints' transactions from
// pool. Outpoints of transactions not in the mempool (confirmed) need no
// bump. replaced are mempool transactions the caller replaces (a fee
// bump's original, Core's conflicts of the outpoints): they and their
// descendants are left out, and their outputs need no bump.
func newMiniMiner(pool map[chainhash.Hash]*MempoolTx, outpoints []wire.OutPoint, replaced []chainhash.Hash) *miniMiner {
	m := &miniMiner{entries: map[chainhash.Hash]*minerEntry{}, requested: map[chainhash.Hash][]wire.OutPoint{},
		bumpFees: map[wire.OutPoint]int64{}, inBlock: map[chainhash.Hash]bool{}, ok: true}
	for _, op := range outpoints {
		if pool[op.Hash] == nil {
			m.bumpFees[op] = 0
			continue
		}
		m.requested[op.Hash] = append(m.requested[op.Hash], op)
	}
	if len(m.requested) == 0 {
		return m
	}
	children := Children(pool)
	// The clusters: everything connected to a requested transaction
	// through parents and children.
	cluster := map[chainhash.Hash]bool{}
	var queue []chainhash.Hash
	for id := range m.requested {
		if !cluster[id] {
			cluster[id] = true
			queue = append(queue, id)
		}
	}
	inPool := func(h chainhash.Hash) bool { return pool[h] != nil }
	gone := map[chainhash.Hash]bool{}
	for _, r := range replaced {
		if pool[r] != nil {
			for d := range walk(r, func(h chainhash.Hash) []chainhash.Hash { return children[h] }, inPool) {
				gone[d] = true
			}
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		next := append(append([]chainhash.Hash(nil), pool[id].Parents...), children[id]...)
		for _, n := range next {
			if pool[n] != nil && !cluster[n] {
				cluster[n] = true
				queue = append(queue, n)
			}
		}
		if len(cluster) > MaxBumpCluster {
			m.ok = false
			return m
		}
	}
	// Outputs of replaced transactions will not exist: no bump.
	for id, ops := range m.requested {
		if gone[id] {
			for _, op := range ops {
				m.bumpFees[op] = 0
			}
			delete(m.requested, id)
		}
	}
	kept := func(h chainhash.Hash) bool { return cluster[h] && !gone[h] }
	for id := range cluster {
		if gone[id] {
			continue
		}
		e := &minerEntry{tx: pool[id]}
		for a := range walk(id, func(h chainhash.Hash) []chainhash.Hash { return pool[h].Parents }, kept) {
			e.ancSize += pool[a].VSize
			e.ancFee += pool[a].Fee
		}
		for d := range walk(id, func(h chainhash.Hash) []chainhash.Hash { return children[h] }, kept) {
			e.descendants = append(e.descendants, d)
		}
		m.entries[id] = e
	}
	return m
}

// walk returns id and every transaction for which within holds reached
// from it through next.
func walk(id chainhash.Hash, next func(chainhash.Hash) []chainhash.Hash, within func(chainhash.Hash) bool) map[chainhash.Hash]bool {
	seen := map[chainhash.Hash]bool{id: true}
	queue := []chainhash.Hash{id}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		for _, n := range next(h) {
			if within(n) && !seen[n] {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	return seen
}

// has reports whether id is still a transaction of the template.
func (m *miniMiner) has(id chainhash.Hash) bool { return m.entries[id] != nil }

// feeFracLess reports whether fee a / size a is less than fee b / size b
// (sizes positive, fees not negative), exactly.
func feeFracLess(feeA, sizeA, feeB, sizeB int64) bool {
	hiA, loA := bits.Mul64(uint64(feeA), uint64(sizeB))
	hiB, loB := bits.Mul64(uint64(feeB), uint64(sizeA))
	return hiA < hiB || (hiA == hiB && loA < loB)
}

// minerScore is the lower of a transaction's own and ancestor-set rates
// (Core's AncestorFeerateComparator: a parent does not pay for its
// children), as a fee and a size.
func minerScore(e *minerEntry) (int64, int64) {
	if feeFracLess(e.ancFee, e.ancSize, e.tx.Fee, e.tx.VSize) {
		return e.ancFee, e.ancSize
	}
	return e.tx.Fee, e.tx.VSize
}

// buildTemplate is Core's BuildMockTemplate with a target rate: the
// ancestor set of the best-scoring transaction is mined, and the totals of
// its descendants lose it, until the best set pays less than rate.
func (m *miniMiner) buildTemplate(rate FeeRate) {
	for len(m.entries) > 0 {
		ids := make([]chainhash.Hash, 0, len(m.entries))
		for id := range m.entries {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool {
			fi, si := minerScore(m.entries[ids[i]])
			fj, sj := minerScore(m.entries[ids[j]])
			if feeFracLess(fj, sj, fi, si) {
				return true
			}
			if feeFracLess(fi, si, fj, sj) {
				return false
			}
			return bytes.Compare(ids[i][:], ids[j][:]) < 0
		})
		best := m.entries[ids[0]]
		if best.ancFee < rate.Fee(int(best.ancSize)) {
			break
		}
		ancestors := walk(ids[0], func(h chainhash.Hash) []chainhash.Hash { return m.entries[h].tx.Parents }, m.has)
		for a := range ancestors {
			e := m.entries[a]
			m.inBlock[a] = true
			for _, d := range e.descendants {
				if de := m.entries[d]; de != nil {
					de.ancSize -= e.tx.VSize
					de.ancFee -= e.tx.Fee
				}
			}
		}
		for a := range ancestors {
			delete(m.entries, a)
		}
	}
}

// IndividualBumpFees is Core's calculateIndividualBumpFees: for each
// outpoint, the fee its spender must add so that the part of its
// transaction's ancestry not mined at rate reaches rate (the larger of
// what the transaction alone and its remaining ancestor set lack); 0 for
// a confirmed coin or one whose ancestry makes the rate. replaced are the
// mempool transactions the spender replaces (newMiniMiner). false when the
// clusters are too large.
func IndividualBumpFees(pool map[chainhash.Hash]*MempoolTx, outpoints []wire.OutPoint, rate FeeRate, replaced []chainhash.Hash) (map[wire.OutPoint]int64, bool) {
	m := newMiniMiner(pool, outpoints, replaced)
	if !m.ok {
		return nil, false
	}
	m.buildTemplate(rate)
	for id, ops := range m.requested {
		e := m.entries[id]
		var bump int64
		if !m.inBlock[id] && e != nil {
			bump = max(rate.Fee(int(e.ancSize))-e.ancFee, rate.Fee(int(e.tx.VSize))-e.tx.Fee)
		}
		for _, op := range ops {
			m.bumpFees[op] = bump
		}
	}
	return m.bumpFees, true
}

// CombinedBumpFee is Core's calculateCombinedBumpFee: the fee spending all
// the outpoints together must add to bring their transactions' remaining
// ancestors (shared ones counted once) up to rate; replaced as for
// IndividualBumpFees. false when the clusters are too large.
func CombinedBumpFee(pool map[chainhash.Hash]*MempoolTx, outpoints []wire.OutPoint, rate FeeRate, replaced []chainhash.Hash) (int64, bool) {
	m := newMiniMiner(pool, outpoints, replaced)
	if !m.ok {
		return 0, false
	}
	m.buildTemplate(rate)
	ancestors := map[chainhash.Hash]bool{}
	for id := range m.requested {
		if m.inBlock[id] || m.entries[id] == nil {
			continue
		}
		for a := range walk(id, func(h chainhash.Hash) []chainhash.Hash { return m.entries[h].tx.Parents }, m.has) {
			ancestors[a] = true
		}
	}
	var size, fee int64
	for a := range ancestors {
		size += m.entries[a].tx.VSize
		fee += m.entries[a].tx.Fee
	}
	return rate.Fee(int(size)) - fee, true
}

// MempoolAncestry is Core's getTransactionAncestry over a mempool
// snapshot: the number of in-mempool ancestors of txid (itself included)
// and the size of its cluster (every transaction connected to it through
// parents and children); 0 and 0 when txid is not in the mempool.
// children maps a transaction to its children in the pool (Children).
func MempoolAncestry(pool map[chainhash.Hash]*MempoolTx, children map[chainhash.Hash][]chainhash.Hash, txid chainhash.Hash) (ancestors, cluster int) {
	if pool[txid] == nil {
		return 0, 0
	}
	inPool := func(h chainhash.Hash) bool { return pool[h] != nil }
	ancestors = len(walk(txid, func(h chainhash.Hash) []chainhash.Hash { return pool[h].Parents }, inPool))
	cluster = len(walk(txid, func(h chainhash.Hash) []chainhash.Hash {
		return append(append([]chainhash.Hash(nil), pool[h].Parents...), children[h]...)
	}, inPool))
	return ancestors, cluster
}

// Children maps each transaction of pool to its children in it.
func Children(pool map[chainhash.Hash]*MempoolTx) map[chainhash.Hash][]chainhash.Hash {
	children := map[chainhash.Hash][]chainhash.Hash{}
	for id, tx := range pool {
		for _, p := range tx.Parents {
			if pool[p] != nil {
				children[p] = append(children[p], id)
			}
		}
	}
	return children
}
