// Package walletscan connects the loaded wallets to the chain: for each
// wallet it runs a scan.Scanner whose Source and Sink are the wallet, keeps
// it following the backend's tip, resumes a rescan a restart interrupted,
// and runs the rescans of importdescriptors and rescanblockchain.
//
// # Model
//
// A Service holds one backend and watches a wallet.Manager: every poll
// interval it attaches the wallets loaded since the last look (each gets a
// scanner fed with the chain state the wallet recorded, and its own tip
// follower) and detaches the unloaded ones. A rescan runs in the service's
// context, not the caller's: a client that drops its connection stops
// neither an import nor its rescan; only abortrescan and the node's
// shutdown do. The rescan's progress is recorded in the wallet after each
// window, so that a node stopped in the middle resumes it when the wallet
// loads again; an aborted rescan is forgotten.
//
// createwallet, loadwallet and restorewallet attach their wallet at once
// (Track) rather than at the next look, so that a new wallet sees every
// block mined after its creation.
//
// A wallet attached with no chain state records the tip at once, before
// any rescan of it starts, so that the follower scans whatever comes after
// a rescan's end. A wallet found at startup with descriptors but no chain
// state was used offline: it rescans from its oldest descriptor's time.
//
// The service also tracks the median time past of the backend's tip, which
// is what an import's "now" means.
//
// # Errors
//
// Errors are scan's (ErrBusy, ErrAborted), chain's and the wallet's, passed
// through.
package walletscan
