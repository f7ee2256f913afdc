// Package scan finds a wallet's transactions in the chain a Backend serves:
// rescans of a height range, and tip following with reorg handling.
//
// # Model
//
// The wallet gives the scanner a Source (its current scriptPubKeys and the
// outpoints it owns, with a generation number that changes whenever new
// scripts appear, as when the key pool tops up) and a Sink (told about each
// block that holds wallet transactions, about the blocks processed so far,
// and about rollbacks). A scan runs over a height range in windows. With
// BIP158 filters (the default when the backend keeps them) a window's block
// hashes and filters are fetched in batches, each filter is matched against
// the wallet's scripts, and only matching blocks are fetched, several
// requests in flight; the next window is fetched while the current one is
// processed. Without filters every block of the window is fetched. A
// transaction belongs to the wallet when one of its outputs pays a watched
// script or one of its inputs spends a watched outpoint; outputs found during
// the scan are watched from then on. Spends are caught by filters too: a
// filter holds the scripts of the outputs a block spends.
//
// When a delivered block makes the Source's generation change (the wallet
// derived more scripts), the watch list is read again and the filters of the
// blocks not yet fetched are matched again, so that a filter scan finds
// exactly what a full scan finds.
//
// StartHeight turns a timestamp into the first block to scan: the first
// block whose time is at least the timestamp, found by a binary search over
// the median time past (which never decreases along a chain).
//
// Sync brings the wallet from its last processed block to the tip. It
// first compares the hashes of the recent blocks the wallet processed with
// the backend's; on a difference it rolls the wallet back to the highest
// common block (a backend whose chain went back to genesis is such a case)
// and scans forward from there. Follow repeats Sync on a timer.
//
// Progress (height, fraction, blocks per second) is available from
// Progress while a rescan runs and is logged at most every LogInterval.
//
// # Errors
//
// ErrAborted (the rescan was aborted or its context ended), ErrBusy (a
// rescan is already running), and the backend's errors (package chain's
// kinds) and the sink's, passed through wrapped.
package scan
