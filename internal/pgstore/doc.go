// Package pgstore keeps wallets in a PostgreSQL database through pgx: one
// database holds many wallets, each table keyed by the wallet. It is the
// PostgreSQL counterpart of package store (SQLite, one file per wallet)
// and, with it, the only code of the node with SQL in it.
//
// # Model
//
// The wallets table names each wallet by a namespace (the node puts the
// network there, so that one database can serve several networks) and a
// name. Every other table holds what the SQLite store holds, with the
// wallet's id in its key: settings (meta), descriptors in public form,
// their private key material apart (descriptor_secrets: sealed under the
// master key in an encrypted wallet, which the store keeps as opaque
// bytes, so no plain key is stored for an encrypted wallet), the
// scriptPubKey digest chunks, active descriptors, the address book, the
// wrapped master key, locked coins, used scripts, the transactions with
// their blocks, the last processed blocks, a rescan in progress and the
// event log (wallet_events, whose cursor grows per wallet).
//
// The schema is versioned by numbered migrations embedded in the binary
// (migrations/NNNN_title.sql); Connect applies the missing ones, each in
// one transaction with the row of descwallet_schema_version that records
// it, under an advisory lock so that nodes starting together apply each
// once. A database of a newer schema is refused (ErrSchema).
//
// Writes run in Store.Update, one transaction per call: when it returns
// nil the server has committed it (durably with the server's default
// synchronous_commit).
//
// # Lifecycle and locking
//
// Create makes a wallet in the state 'creating', invisible to Open and
// List until Publish; Close before Publish removes it, and Recover removes
// the remnant of a creator that died. An open wallet holds a session
// advisory lock (one session per DB holds the locks of all its wallets),
// so the same wallet is never open twice, in this process or on another
// node (ErrLocked). The lock session is checked every two seconds while
// wallets are open; when it was lost (a server restart, a broken
// connection) a new one takes the locks again, and a wallet whose lock
// another node took in between refuses every write (ErrLocked) until it
// is closed.
//
// Rewrite rebuilds the tables that hold secrets (VACUUM FULL) so that no
// dead row version of an overwritten secret (a private key before
// encryption, a master key wrapped under an old passphrase) stays in their
// files; a transaction that overwrites a secret marks the rewrite
// (Tx.MarkRewrite) and Open or Recover finish a marked one a crash
// interrupted. A row version that a snapshot of another session may still
// see survives the rebuild, and the server's write-ahead log and its
// archives are out of reach of any client: encrypt a wallet before giving
// it keys, as with Core.
//
// # Several nodes
//
// Nodes sharing a database serve the same wallets: OpenShared opens a
// wallet without its open lock (Share turns a created one shared once it
// is published); ReserveIndexes and ReserveNext hand out a descriptor's
// derivation indexes with one UPDATE ... RETURNING, so two nodes never
// give the same address; every write of a shared Store moves one of the
// wallet's change counters in its own transaction (wallets.change_seq for
// keys, descriptors, address book and settings, handout_seq for an address
// handout, chain_seq for transactions, chain position, rescan record and
// events), and Changes, Stale, ChainStale, Seen and SeenChain let a node
// tell whether another node wrote since it read the wallet, and what;
// Exclusive and Hold run a wallet's operations that must not overlap
// (imports, rescans, encryption, spending) under one advisory lock, one
// node at a time; TryLeader and WaitLeader hold a named leadership (the
// chain follower) on a session of its own, which a node loses, and another
// takes, as soon as the server sees the session end. Each leadership has an
// epoch (chain_leaders) moved by every new leader; the writes of a context
// fenced by a Leader (Leader.Fence) check it in their transaction, so a
// former leader writes nothing once another node leads.
//
// # Errors
//
// Failures are *Error values of the errkind pattern with kinds ErrExists,
// ErrNotFound, ErrSchema, ErrLocked and ErrDatabase (the server's error
// wrapped). Use errors.Is with the kinds.
package pgstore
