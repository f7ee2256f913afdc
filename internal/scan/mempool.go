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

// PollMempool reads the backend's mempool, delivers the wallet's
// transactions in it that it has not examined yet (at most
// Config.MempoolPerPoll fetched per poll) and lets the sink drop the
// unconfirmed transactions that left it. It does nothing when the sink is
// not a MempoolSink or polling is off. It returns the number of
// transactions delivered.
func (s *Scanner) PollMempool(ctx context.Context) (int, error) {
	ms, ok := s.cfg.Sink.(MempoolSink)
	if !ok || s.cfg.MempoolPerPoll < 0 {
		return 0, nil
	}
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	b := s.cfg.Backend
	last, ok := s.state.Tip()
	if !ok {
		return 0, nil
	}
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
	if gen := s.cfg.Source.Generation(); s.mempoolSeen == nil || gen != s.mempoolGen {
		s.mempoolSeen = map[chainhash.Hash]struct{}{}
		s.mempoolGen = gen
	}
	for id := range s.mempoolSeen {
		if _, ok := inPool[id]; !ok {
			delete(s.mempoolSeen, id)
		}
	}
	var fresh []chainhash.Hash
	for _, id := range ids {
		if len(fresh) >= s.cfg.MempoolPerPoll {
			break
		}
		if _, ok := s.mempoolSeen[id]; !ok {
			fresh = append(fresh, id)
		}
	}

	found := 0
	if len(fresh) > 0 {
		txs, err := b.MempoolTxs(ctx, fresh)
		if err != nil {
			return 0, err
		}
		wl, err := s.cfg.Source.WatchList(ctx)
		if err != nil {
			return 0, err
		}
		for _, round := range matchMempool(wl, txs) {
			// Parents first: the sink tells a spend of its outputs
			// by the transactions it knows.
			if err := ms.MempoolTxs(ctx, round); err != nil {
				return 0, err
			}
			found += len(round)
		}
		for i, id := range fresh {
			if txs[i] != nil {
				s.mempoolSeen[id] = struct{}{}
			}
		}
	}

	// A block found since the last Sync may hold transactions that left
	// the mempool: they are not gone, the next Sync delivers them.
	tip, err := b.Tip(ctx)
	if err != nil || tip != last {
		return found, err
	}
	err = ms.MempoolLeft(ctx, func(id chainhash.Hash) bool {
		_, ok := inPool[id]
		return ok
	})
	return found, err
}

// matchMempool returns the transactions of txs (nil entries skipped) that
// pay one of wl's scripts or spend one of its outputs, in rounds: the first
// round matches wl itself, each next one the wallet outputs of the rounds
// before it, so that a transaction comes in a later round than the
// transactions whose outputs make it the wallet's.
func matchMempool(wl *WatchList, txs []*wire.MsgTx) [][]*wire.MsgTx {
	scripts := make(map[string]struct{}, len(wl.Scripts))
	for _, sc := range wl.Scripts {
		scripts[string(sc)] = struct{}{}
	}
	outpoints := make(map[wire.OutPoint]struct{}, len(wl.Outpoints))
	for _, op := range wl.Outpoints {
		outpoints[op] = struct{}{}
	}
	taken := make([]bool, len(txs))
	var rounds [][]*wire.MsgTx
	for {
		var round []*wire.MsgTx
		var gained []wire.OutPoint
		for i, tx := range txs {
			if tx == nil || taken[i] {
				continue
			}
			mine := false
			for _, in := range tx.TxIn {
				if _, ok := outpoints[in.PreviousOutPoint]; ok {
					mine = true
					break
				}
			}
			id := tx.TxHash()
			for j, out := range tx.TxOut {
				if _, ok := scripts[string(out.PkScript)]; ok {
					mine = true
					gained = append(gained, wire.OutPoint{Hash: id, Index: uint32(j)})
				}
			}
			if mine {
				taken[i] = true
				round = append(round, tx)
			}
		}
		if len(round) == 0 {
			return rounds
		}
		rounds = append(rounds, round)
		for _, op := range gained {
			outpoints[op] = struct{}{}
		}
	}
}
