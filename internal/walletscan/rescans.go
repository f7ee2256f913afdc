package walletscan

import (
	"context"
	"sync"
	"time"

	"github.com/descwallet/descwallet/internal/scan"
	"github.com/descwallet/descwallet/internal/wallet"
)

// Rescans holds each wallet's rescan reservation, as Core's
// WalletRescanReserver: importdescriptors and rescanblockchain take it for
// their whole call (with the passphrase, which keeps the wallet from being
// locked, encrypted or given a new passphrase meanwhile), unloadwallet
// takes it for a moment. A wallet whose background rescan runs (a resumed
// or catch-up rescan of the service) counts as reserved too. An offline
// node has Rescans without a Service.
type Rescans struct {
	mu   sync.Mutex
	held map[*wallet.Wallet]bool // the value tells "with passphrase"
	busy func(*wallet.Wallet) bool
}

// NewRescans returns an empty registry.
func NewRescans() *Rescans {
	return &Rescans{held: map[*wallet.Wallet]bool{}}
}

// errBusy is the refusal of a reservation.
func errBusy() error {
	return &scan.Error{Kind: scan.ErrBusy, Description: "a rescan is running"}
}

// Reserve takes w's rescan slot, or fails with an error of kind
// scan.ErrBusy when it is taken. The caller calls release when its call
// ends (more calls do nothing).
func (r *Rescans) Reserve(w *wallet.Wallet, withPassphrase bool) (release func(), err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, taken := r.held[w]; taken {
		return nil, errBusy()
	}
	if r.busy != nil && r.busy(w) {
		return nil, errBusy()
	}
	r.held[w] = withPassphrase
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			delete(r.held, w)
			r.mu.Unlock()
		})
	}, nil
}

// ScanningWithPassphrase reports whether an import or rescanblockchain
// call holds w's rescan slot (Core's IsScanningWithPassphrase).
func (r *Rescans) ScanningWithPassphrase(w *wallet.Wallet) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held[w]
}

// Rescans returns the service's reservation registry, which counts the
// service's own background rescans as reservations.
func (s *Service) Rescans() *Rescans { return s.rescans }

// Scanning is getwalletinfo's "scanning" of a running rescan.
type Scanning struct {
	// Duration is how long the rescan has run, in whole seconds.
	Duration int64
	// Progress is the share of its range scanned, 0 to 1.
	Progress float64
}

// Scanning returns the progress of w's running rescan, false when none
// runs.
func (s *Service) Scanning(w *wallet.Wallet) (Scanning, bool) {
	p, ok := s.Progress(w)
	if !ok {
		return Scanning{}, false
	}
	return Scanning{Duration: int64(time.Since(p.Started).Seconds()), Progress: p.Fraction()}, true
}

// ImportTime is the timestamp of one importdescriptors element.
type ImportTime struct {
	// Time is the creation time in UNIX seconds, "now" resolved (Now).
	Time int64
	// Now tells that the element said "now".
	Now bool
	// Imported tells that the element was imported.
	Imported bool
}

// RecordsRescan tells whether an import element of time t records its
// rescan with its descriptor (wallet.ImportElement.RescanFrom), so that a
// crash before the rescan, or a node offline, still leaves it to be done:
// never for "now" (which scans nothing); always with a chain backend
// (online); offline only for a wallet that processed blocks (one that
// processed none scans from its birth time when it first meets a chain).
func RecordsRescan(t ImportTime, online bool, w *wallet.Wallet) bool {
	if t.Now {
		return false
	}
	if online {
		return true
	}
	_, processed := w.LastProcessedBlock()
	return processed
}

// ImportRescan runs the rescan of an importdescriptors call once its
// elements are stored: from the earliest element's time less
// TimestampWindow through the tip, unless no element was imported or every
// element said "now" (which scans nothing, where Core rescans two hours).
// It returns when the rescan ends; the caller's cancellation does not stop
// it.
func (s *Service) ImportRescan(ctx context.Context, w *wallet.Wallet, times []ImportTime) error {
	imported, allNow := false, true
	lowest := int64(-1)
	for _, t := range times {
		imported = imported || t.Imported
		allNow = allNow && t.Now
		if lowest < 0 || t.Time < lowest {
			lowest = t.Time
		}
	}
	if !imported || allNow {
		return nil
	}
	_, err := s.RescanFrom(ctx, w, lowest)
	return err
}
