// Package scan finds wallets' transactions in the chain a Backend serves:
// rescans of a height range, and tip following with reorg handling, for
// one wallet (Scanner) or for every wallet at once (Follower).
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
// # One follower for every wallet
//
// A Follower follows the tip for any number of members (a Source and Sink
// each, normally one per loaded wallet) with one index: each watched
// script under a keyed 64-bit hash, with the ids of the members watching
// it, behind a bloom filter of 16 bits a script, and each watched
// outpoint. Each new block is handled once for all members: its filter
// is matched against every member's scripts, or, when hashing the watched
// scripts would cost more than looking through the block (a hundred
// thousand scripts against a block of a few thousand filter elements), the
// block is fetched raw and its output scripts and spent outpoints are
// looked up in the index (chain.ScanBlock, which decodes nothing); only a
// block that holds something watched is decoded, and each member is
// handed its own transactions. Outputs paying a member become watched
// outpoints, outpoints a block spends stop being watched (a rollback reads
// the member's list again). Members that are behind (just added, or after
// a failure of their sink) catch up in the same Sync, those at the same
// block as one group, and then join the others; one member's failure does
// not stop the others. The mempool is read once for all members.
//
// A Scanner is one wallet's: its Sync and mempool poll run on a Follower of
// one member, its rescans on an index of their own built from the watch
// list at the start (a rescan and the tip following run side by side).
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
