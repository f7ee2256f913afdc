// Package wallet is one descriptor wallet and the manager of the loaded
// wallets of a node.
//
// # Model
//
// A wallet is a set of output descriptors (descriptor package) with, for
// each, its range of derived indexes, next index, creation time, private
// keys and derivation cache; the active descriptor of each output type on
// the receive and change side; and an address book of labels. It reads its
// database (through the Store interface it declares) once, when it loads,
// and keeps in memory an index from scriptPubKey to (descriptor, index):
// the key is the first 8 bytes of SHA-256 of the script and the value a
// packed (descriptor slot, index) word, so that ownership questions such as
// getaddressinfo never touch the database and cost no key derivation except
// one expansion of the matching index, which a small cache keeps.
//
// Importing follows Bitcoin Core's importdescriptors rules in Core's order
// with Core's messages. A ranged descriptor is derived only over its range
// and key pool (never from index 0 when the range starts higher, never past
// 2^31-1); the digests of the derived scripts are stored in chunks of
// consecutive indexes, not one row per key, and each element is written in
// one transaction before its result is returned.
//
// The Manager keeps the loaded wallets, creates, loads and unloads them in
// the data directory's wallets folder (<network folder>/wallets/<name>/
// wallet.sqlite) and maintains the startup list in settings.json as Core
// does. A new wallet is written whole under a temporary name and published
// by a rename (Store.Publish), a restore copies its backup the same way,
// and Recover clears what a crash left of either at start-up. A wallet
// folder is open at most once: the manager compares real paths and the
// store holds a lock, with Core's lock error. The file records its network
// (meta "network"), checked before anything of the file is parsed; errors
// never quote a stored private descriptor.
//
// An encrypted wallet seals every private key record under a random master
// key (AES-256-GCM); the master key is wrapped under a key derived from the
// passphrase by Argon2id, with the parameters stored beside it. The wallet
// loads locked: public operations work from the descriptors' public forms
// and derivation caches, and every use of private keys (importdescriptors,
// listdescriptors with private keys, derivations that need hardened private
// steps, signing) first checks EnsureUnlocked. Unlock decrypts the keys for
// a number of seconds; Lock, the relock timer and shutdown drop them and
// wipe the buffers the wallet owns. Encrypt seals every record in one
// transaction that also marks a rewrite as pending, then rewrites the
// database so that no plain copy stays in its free pages or log; if the
// process dies first, the store finishes the rewrite when the file is next
// opened.
//
// The wallet also keeps what it learned from the chain (chain.go, txs.go):
// the transactions that pay or spend it, each with its block, the last
// blocks it processed and a rescan in progress, read from the database at
// first use. A chain scanner reads the wallet's watch list (every derived
// scriptPubKey and its unspent outputs, with a generation that changes when
// scripts are added) and delivers the blocks that hold wallet transactions;
// outputs to ranged descriptors move their next index past the used one
// and top the key pool up in the same database transaction. Listings
// (unspent outputs, balances, transactions) are computed from these
// transactions: a coinbase is immature until it has CoinbaseMaturity
// blocks on top, an output is spent once a wallet transaction spends it,
// and a reorg leaves the transactions of dropped blocks unconfirmed.
//
// # Errors
//
// Failures are *Error values whose Kind names Core's RPC error code
// (ErrWallet -4, ErrInvalidParameter -8, ErrInvalidAddressOrKey -5,
// ErrInvalidLabel -11, ErrKeypoolRanOut -12, ErrUnlockNeeded -13,
// ErrPassphraseIncorrect -14, ErrWrongEncState -15, ErrEncryptionFailed -16,
// ErrNotFound -18, ErrNotSpecified -19, ErrAlreadyLoaded -35, ErrMisc -1)
// and whose message is Core's text. ErrStorage wraps database failures;
// ErrNotSupported is a feature not built yet.
//
// # Concurrency
//
// Wallet and Manager are safe for concurrent use. Writers (imports, new
// addresses, labels) are serialised; readers share a lock and see each
// write only after it is on disk.
package wallet
