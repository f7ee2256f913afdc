package walletscan

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/safego"
)

// Core's resubmission schedule (CWallet::GetDefaultNextResend and
// ResubmitWalletTransactions): every 12 to 36 hours at random, the
// transactions received at least 5 minutes before.
const (
	resendMin    = 12 * time.Hour
	resendSpread = 24 * time.Hour
	resendMinAge = 5 * time.Minute
)

// resendState is one attached wallet's resubmission schedule; only the
// resubmission loop touches it.
type resendState struct {
	// all: every candidate is submitted at the next round, whatever its
	// age (the wallet was just attached, or the backend came back or was
	// unreachable at the last try); Core does so at wallet load.
	all bool
	// seenUp is the service's reconnects when the wallet last submitted.
	seenUp uint64
	// seenFailed is the wallet's relay failures then: a relay that failed
	// since (a backend down for less than a poll) is tried again at once
	// rather than at the next periodic run.
	seenFailed uint64
	next       time.Time
}

// nextResend returns when the next periodic resubmission is due.
func (s *Service) nextResend(now time.Time) time.Time {
	if s.cfg.ResendInterval > 0 {
		return now.Add(s.cfg.ResendInterval)
	}
	return now.Add(resendMin + rand.N(resendSpread))
}

// startResubmission runs the resubmission loop until the service stops:
// each poll it looks at the wallets this node follows the chain for (only
// the leader's, in shared mode), apart from the chain follower so that a
// slow backend delays neither the following nor the calls.
func (s *Service) startResubmission() {
	s.wg.Add(1)
	safego.Go("wallet resubmission", func() error {
		defer s.wg.Done()
		states := map[*walletScan]*resendState{}
		t := time.NewTicker(s.cfg.Poll)
		defer t.Stop()
		for {
			safego.Run("wallet resubmission round", func() error {
				s.resubmitRound(states)
				return nil
			})
			select {
			case <-s.ctx.Done():
				return nil
			case <-t.C:
			}
		}
	})
}

// resubmitRound submits again, for each attached wallet whose time came,
// its transactions outside the mempool (Core's ResubmitWalletTransactions
// at load and MaybeResendWalletTxs on its timer).
func (s *Service) resubmitRound(states map[*walletScan]*resendState) {
	s.mu.Lock()
	var live []*walletScan
	if s.term != nil && s.term.Err() == nil {
		for _, ws := range s.scans {
			live = append(live, ws)
		}
	}
	s.mu.Unlock()
	now := time.Now()
	keep := map[*walletScan]bool{}
	up := s.reconnects.Load()
	for _, ws := range live {
		if ws.ctx.Err() != nil {
			continue
		}
		keep[ws] = true
		st, ok := states[ws]
		if !ok {
			st = &resendState{all: true, seenUp: up, seenFailed: ws.w.RelayFailures(), next: s.nextResend(now)}
			states[ws] = st
		}
		if st.seenUp != up {
			st.all, st.seenUp = true, up
		}
		if f := ws.w.RelayFailures(); f != st.seenFailed {
			st.all, st.seenFailed = true, f
		}
		var before int64
		switch {
		case st.all:
		case !now.Before(st.next):
			st.next = s.nextResend(now)
			if s.cfg.ResendInterval == 0 {
				before = now.Add(-resendMinAge).Unix()
			}
		default:
			continue
		}
		st.all = !s.resubmit(ws, before)
	}
	for ws := range states {
		if !keep[ws] {
			delete(states, ws)
		}
	}
}

// resubmit submits the wallet's candidates received at or before before
// (0: all) in the order it recorded them; it reports false when the
// backend could not be reached, so that they are submitted again when it
// can.
func (s *Service) resubmit(ws *walletScan, before int64) bool {
	w := ws.w
	txs, err := w.ResubmitCandidates(ws.ctx, before)
	if err != nil {
		return ws.ctx.Err() != nil
	}
	log := s.cfg.Log.With("wallet", w.Name())
	n := 0
	for _, tx := range txs {
		ctx, cancel := context.WithTimeout(ws.ctx, time.Minute)
		_, err := s.cfg.Backend.SendRawTransaction(ctx, tx)
		cancel()
		if err != nil {
			if errors.Is(err, chain.ErrUnreachable) {
				log.Warn("cannot resubmit wallet transactions: backend unreachable", "err", err)
				return false
			}
			log.Debug("wallet transaction not resubmitted", "txid", tx.TxHash().String(), "err", err)
			continue
		}
		w.Resubmitted(ws.ctx, tx.TxHash())
		n++
	}
	if n > 0 {
		log.Info("resubmitted unconfirmed wallet transactions", "count", n)
	}
	return true
}
