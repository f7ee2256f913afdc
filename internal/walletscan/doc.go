// Package walletscan connects the loaded wallets to the chain: one
// scan.Follower follows the backend's tip for every loaded wallet, and the
// service runs the wallets' rescans (importdescriptors, rescanblockchain,
// catch-up of a wallet loaded or used offline, a rescan a restart
// interrupted), owns their reservations (Rescans, Core's
// WalletRescanReserver), their progress (Scanning) and the meaning of an
// import's "now".
//
// # Model
//
// A Service holds one backend and watches a wallet.Manager: every poll
// interval it adds the wallets loaded since the last look to the follower
// (each with the chain state the wallet recorded) and removes the unloaded
// ones; the follower catches each added wallet up and then serves it with
// the others, one filter or block fetch a block for all. A rescan runs in
// the service's context, not the caller's: a client that drops its
// connection stops neither an import nor its rescan; only abortrescan and
// the node's shutdown do. The rescan's progress is recorded in the wallet
// after each window, so that a node stopped in the middle resumes it when
// the wallet loads again; an aborted rescan is forgotten. After a rescan
// the follower reads the wallet's outpoints again.
//
// createwallet, loadwallet and restorewallet attach their wallet at once
// (Track) rather than at the next look, so that a new wallet sees every
// block mined after its creation.
//
// # Several nodes
//
// With Config.Leader (wallets shared by several nodes on one PostgreSQL
// database) the service follows only while this node leads: each term of
// leadership gets its own follower and a context fenced by the leadership,
// and ends, detaching every wallet, as soon as the leadership is lost. A
// new leader reads each wallet from the database before attaching it and
// resumes the rescans recorded there; every poll it reads the wallets'
// changes and runs the rescans other nodes recorded. On a node that does
// not lead, Rescan and RescanFrom record the range as the wallet's pending
// rescan and wait until the leader cleared it.
//
// A wallet attached with no chain state records the tip at once, before
// any rescan of it starts, so that the follower scans whatever comes after
// a rescan's end. A wallet found at startup with descriptors but no chain
// state was used offline: it rescans from its oldest descriptor's time.
//
// The service also tracks the median time past of the backend's tip, which
// is what an import's "now" means (Now); an import whose elements all say
// "now" scans nothing (ImportRescan), and only elements with a time record
// their rescan with their descriptor (RecordsRescan).
//
// # Errors
//
// Errors are scan's (ErrBusy, also for a refused reservation, and
// ErrAborted), chain's and the wallet's, passed through.
package walletscan
