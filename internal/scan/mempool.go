package scan

import (
	"context"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// MempoolSink is an optional Sink interface: a sink that implements it
// learns of the backend's mempool transactions that touch the wallet, as
// Follow polls the mempool after each Sync.
type MempoolSink interface {
	// MempoolTxs delivers mempool transactions paying one of the watched
	// scripts or spending one of the watched outputs, to be recorded as
	// unconfirmed; some may be known to the sink already.
	MempoolTxs(ctx context.Context, txs []*wire.MsgTx) error

	// MempoolLeft tells the sink which transactions are in the mempool
	// now (a complete read of it, taken with no block mined since the
	// last Sync): its unconfirmed transactions outside it left the
	// mempool without being mined.
	MempoolLeft(ctx context.Context, inMempool func(chainhash.Hash) bool) error
}

// PollMempool reads the backend's mempool once for every joined member,
// delivers to each the transactions in it that concern it and that the
// follower has not examined yet (at most Config.MempoolPerPoll fetched per
// poll), and lets each drop its unconfirmed transactions that left it.
// Members whose sink is not a MempoolSink are left out; polling off
// (MempoolPerPoll < 0) does nothing. It returns the number of deliveries
// (a transaction counts once per member it concerns). A member's failure
// is logged and does not stop the others.
func (f *Follower) PollMempool(ctx context.Context) (int, error) {
	if f.e.cfg.MempoolPerPoll < 0 {
		return 0, nil
	}
	f.syncMu.Lock()
	defer f.syncMu.Unlock()
	return f.pollMempool(ctx, false)
}

// pollMempool is PollMempool; lone makes a member's failure the poll's.
// The caller holds syncMu.
func (f *Follower) pollMempool(ctx context.Context, lone bool) (int, error) {
	var members []*member
	for _, m := range f.live(true) {
		if _, ok := m.sink.(MempoolSink); ok {
			members = append(members, m)
		}
	}
	last, ok := f.state.Tip()
	if len(members) == 0 || !ok {
		return 0, nil
	}
	b := f.e.cfg.Backend
	ids, err := b.MempoolTxIDs(ctx)
	if err != nil {
		return 0, err
	}
	inPool := make(map[chainhash.Hash]struct{}, len(ids))
	for _, id := range ids {
		inPool[id] = struct{}{}
	}

	// New scripts may make transactions examined before the wallet's:
	// examine everything again.
	if f.mempoolSeen == nil || f.indexGen != f.mempoolGen {
		f.mempoolSeen = map[chainhash.Hash]struct{}{}
		f.mempoolGen = f.indexGen
	}
	for id := range f.mempoolSeen {
		if _, ok := inPool[id]; !ok {
			delete(f.mempoolSeen, id)
		}
	}
	var fresh []chainhash.Hash
	for _, id := range ids {
		if len(fresh) >= f.e.cfg.MempoolPerPoll {
			break
		}
		if _, ok := f.mempoolSeen[id]; !ok {
			fresh = append(fresh, id)
		}
	}

	failed := map[*member]bool{}
	var firstErr error
	fail := func(m *member, err error) {
		if firstErr == nil {
			firstErr = err
		}
		failed[m] = true
		f.e.cfg.Log.Warn("mempool delivery failed", "err", err)
	}
	found := 0
	if len(fresh) > 0 {
		txs, err := b.MempoolTxs(ctx, fresh)
		if err != nil {
			return 0, err
		}
		asked, _ := ask(ctx, members, txs, func(m *member, err error) error {
			fail(m, err)
			return nil
		})
		set := &scanSet{}
		for _, m := range members {
			if !failed[m] {
				set.members = append(set.members, m)
			}
		}
		f.e.begin(set)
		rounds := matchMempoolIndex(f.e.x, txs, f.e.in, asked)
		pos := make(map[chainhash.Hash]int, len(txs))
		for i, tx := range txs {
			if tx != nil {
				pos[tx.TxHash()] = i
			}
		}
		f.e.end(set)
		for _, m := range members {
			// Parents first: the sink tells a spend of its outputs
			// by the transactions it knows.
			for _, round := range rounds[m.id] {
				if len(round) == 0 {
					continue
				}
				if err := m.sink.(MempoolSink).MempoolTxs(ctx, round); err != nil {
					fail(m, err)
					break
				}
				// The wallet watches every input of its unconfirmed
				// transactions: a block spending one elsewhere
				// conflicts with the transaction. Their outputs that
				// pay the wallet are its coins now: a transaction of a
				// later poll spending one is the wallet's too (the
				// wallet's own deliveries do not reload its watch
				// list).
				for _, tx := range round {
					for _, in := range tx.TxIn {
						f.e.x.outpoints.add(in.PreviousOutPoint, m.id)
					}
					for _, op := range paidOutputs(f.e.x, tx, pos[tx.TxHash()], asked, m.id) {
						f.e.x.outpoints.add(op, m.id)
					}
				}
				found += len(round)
			}
		}
		if lone && firstErr != nil {
			return found, firstErr
		}
		for i, id := range fresh {
			if txs[i] != nil {
				f.mempoolSeen[id] = struct{}{}
			}
		}
	}

	// A block found since the last Sync may hold transactions that left
	// the mempool: they are not gone, the next Sync delivers them.
	tip, err := b.Tip(ctx)
	if err != nil || tip != last {
		return found, err
	}
	for _, m := range members {
		if failed[m] {
			continue
		}
		err := m.sink.(MempoolSink).MempoolLeft(ctx, func(id chainhash.Hash) bool {
			_, ok := inPool[id]
			return ok
		})
		if err != nil {
			fail(m, err)
		}
	}
	if lone {
		return found, firstErr
	}
	return found, nil
}

// matchMempoolIndex returns, per member of the scan (in), the transactions
// of txs (nil entries skipped) that pay one of its scripts or spend one of
// its outputs, in rounds: the first round matches the index itself, each
// next one the member's outputs of the rounds before it, so that a
// transaction comes in a later round than the transactions whose outputs
// make it the member's.
//
// asked holds the owners of outputs whose members are asked, not indexed
// (ScriptMatcher), by outKey.
func matchMempoolIndex(x *index, txs []*wire.MsgTx, in []bool, asked map[uint64][]uint32) map[uint32][][]*wire.MsgTx {
	rounds := map[uint32][][]*wire.MsgTx{}
	gained := newOwnerMap[wire.OutPoint]()
	assigned := make([][]uint32, len(txs))
	ids := make([]chainhash.Hash, len(txs))
	for i, tx := range txs {
		if tx != nil {
			ids[i] = tx.TxHash()
		}
	}
	var owners, payees []uint32
	for r := 0; ; r++ {
		progress := false
		var gains []wire.OutPoint
		var gainIDs []uint32
		for i, tx := range txs {
			if tx == nil {
				continue
			}
			owners = owners[:0]
			for _, in := range tx.TxIn {
				owners = x.outpoints.owners(in.PreviousOutPoint, owners)
				owners = gained.owners(in.PreviousOutPoint, owners)
			}
			for j, out := range tx.TxOut {
				payees = payees[:0]
				if k := x.key(out.PkScript); x.seen.may(k) {
					payees = x.scripts.owners(k, payees)
				}
				if asked != nil {
					payees = append(payees, asked[outKey(i, j)]...)
				}
				for _, id := range payees {
					if int(id) < len(in) && in[id] {
						owners = append(owners, id)
						gains = append(gains, wire.OutPoint{Hash: ids[i], Index: uint32(j)})
						gainIDs = append(gainIDs, id)
					}
				}
			}
			for k, id := range owners {
				if int(id) >= len(in) || !in[id] || containsID(owners[:k], id) || containsID(assigned[i], id) {
					continue
				}
				assigned[i] = append(assigned[i], id)
				rs := rounds[id]
				for len(rs) <= r {
					rs = append(rs, nil)
				}
				rs[r] = append(rs[r], tx)
				rounds[id] = rs
				progress = true
			}
		}
		if !progress {
			return rounds
		}
		for k, op := range gains {
			gained.add(op, gainIDs[k])
		}
	}
}

// paidOutputs returns the outputs of tx (at position i of the batch) that
// pay member id: a script of its in the index, or one it said is its own
// (asked, by outKey).
func paidOutputs(x *index, tx *wire.MsgTx, i int, asked map[uint64][]uint32, id uint32) []wire.OutPoint {
	var out []wire.OutPoint
	var payees []uint32
	txid := tx.TxHash()
	for j, o := range tx.TxOut {
		payees = payees[:0]
		if k := x.key(o.PkScript); x.seen.may(k) {
			payees = x.scripts.owners(k, payees)
		}
		if asked != nil {
			payees = append(payees, asked[outKey(i, j)]...)
		}
		if containsID(payees, id) {
			out = append(out, wire.OutPoint{Hash: txid, Index: uint32(j)})
		}
	}
	return out
}
