package wallet

import (
	"context"
	"encoding/binary"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// Wallet flags, numbered as Core numbers them (getwalletinfo lists them in
// bit order).
const (
	FlagAvoidReuse             uint64 = 1 << 0
	FlagKeyOriginMetadata      uint64 = 1 << 1
	FlagLastHardenedXPubCached uint64 = 1 << 2
	FlagDisablePrivateKeys     uint64 = 1 << 32
	FlagBlankWallet            uint64 = 1 << 33
	FlagDescriptors            uint64 = 1 << 34
	FlagExternalSigner         uint64 = 1 << 35
	metaFlags                         = "flags"
	metaFormat                        = "format"
	metaNetwork                       = "network"
	walletFormatVersion        uint64 = 1
	purposeReceive                    = "receive"
	purposeSend                       = "send"
	purposeChange                     = "change"
	hdSeedIDZero                      = "0000000000000000000000000000000000000000"
	maxIndex                   int64  = 1<<31 - 1
)

var flagNames = []struct {
	flag uint64
	name string
}{
	{FlagAvoidReuse, "avoid_reuse"},
	{FlagKeyOriginMetadata, "key_origin_metadata"},
	{FlagLastHardenedXPubCached, "last_hardened_xpub_cached"},
	{FlagDisablePrivateKeys, "disable_private_keys"},
	{FlagBlankWallet, "blank"},
	{FlagDescriptors, "descriptor_wallet"},
	{FlagExternalSigner, "external_signer"},
}

// Config configures one wallet.
type Config struct {
	Name    string
	Net     *chaincfg.Params
	Keypool int
	Now     func() int64
	// Log and DescLog receive the wallet's debug lines (WLLT and DESC
	// subsystems, see log.go); nil discards them.
	Log, DescLog *slog.Logger
	// Options are the node's spending options; nil means Core's
	// defaults.
	Options *Options
	// TxNotify, when set, is told of each transaction that came in or
	// changed state once the change is stored; it must not block.
	TxNotify func(TxNotice)
	// EventDepths are the confirmation depths the event log reports,
	// ascending; empty means DefaultEventDepths.
	EventDepths []int32
}

// Wallet is one loaded descriptor wallet. Its methods are safe for
// concurrent use: reads (AddressInfo, ListDescriptors, Info) share a lock,
// writes take it alone and write the database before they change memory.
type Wallet struct {
	cfg   Config
	store Store

	mu     genRWMutex
	infos  infoCache
	flags  uint64
	descs  []*walletDesc // by import order
	byID   map[[32]byte]*walletDesc
	active map[activeKey]*walletDesc
	book   map[string]*bookEntry // by scriptPubKey
	index  scriptIndex
	closed bool
	crypt  cryptState
	// replacedBirth is the earliest creation time a re-import replaced
	// since the wallet was loaded (0: none). Core's birth time only ever
	// moves back while the wallet is loaded.
	replacedBirth int64

	// importMu serialises imports and address hand-outs (the writers),
	// so that expansion can run without holding mu.
	importMu sync.Mutex

	// exclusiveSem lets one call of this node at a time wait for the
	// wallet's exclusive-operation lock in a shared database (shared.go),
	// so that the waiters do not hold every pooled connection the holder
	// needs.
	exclusiveSem chan struct{}

	// chain holds the wallet's transactions and chain state (chain.go).
	chain chainData
	// chainWrites counts the committed transactions of the chain store
	// (updateChain), so that tests can tell a call that wrote nothing.
	chainWrites atomic.Uint64

	// evsig wakes the event log's readers after a commit (eventsignal.go).
	evsig eventSignal
	// noEvents leaves the event log out of wallet updates: benchmarks set
	// it to measure what the log adds.
	noEvents bool
	// relayFailures counts the relays the backend refused or could not
	// take, so that the resubmission loop tries again at its next round
	// instead of waiting for its periodic run.
	relayFailures atomic.Uint64

	// locks are the outputs locked with lockunspent (locks.go).
	locks coinLocks

	// payTxFee is the wallet's fee rate set by -paytxfee or settxfee
	// (satoshis per 1000 vbytes, 0: estimate).
	payTxFee atomic.Int64
}

type activeKey struct {
	outputType OutputType
	internal   bool
}

type bookEntry struct {
	label   *string
	purpose string
}

func newWallet(cfg Config, st Store) *Wallet {
	if cfg.Options == nil {
		o := DefaultOptions()
		cfg.Options = &o
	}
	w := &Wallet{
		cfg:    cfg,
		store:  st,
		byID:   map[[32]byte]*walletDesc{},
		active: map[activeKey]*walletDesc{},
		book:   map[string]*bookEntry{},
		index:  newSPKIndex(),
		locks:  coinLocks{m: map[wire.OutPoint]bool{}, used: map[string]bool{}},

		exclusiveSem: make(chan struct{}, 1),
	}
	if ss, ok := st.(ScriptStore); ok {
		w.index = newDBIndex(w, ss)
	}
	w.payTxFee.Store(cfg.Options.PayTxFee)
	return w
}

// Options returns the node's spending options (read only).
func (w *Wallet) Options() *Options { return w.cfg.Options }

// PayTxFee returns the wallet's fixed fee rate (satoshis per 1000 vbytes;
// 0 when fees are estimated).
func (w *Wallet) PayTxFee() int64 { return w.payTxFee.Load() }

// SetPayTxFee sets the wallet's fixed fee rate (settxfee); it lasts until
// the wallet is unloaded, as in Core.
func (w *Wallet) SetPayTxFee(perKvB int64) { w.payTxFee.Store(perKvB) }

// Name returns the wallet's name.
func (w *Wallet) Name() string { return w.cfg.Name }

// create initialises a new wallet in an empty database.
func create(ctx context.Context, cfg Config, st Store, opts CreateOptions) (*Wallet, error) {
	w := newWallet(cfg, st)
	w.flags = FlagDescriptors | FlagLastHardenedXPubCached
	if opts.DisablePrivateKeys {
		w.flags |= FlagDisablePrivateKeys
	}
	if opts.Blank {
		w.flags |= FlagBlankWallet
	}
	if opts.AvoidReuse {
		w.flags |= FlagAvoidReuse
	}
	var flagBytes, formatBytes [8]byte
	binary.BigEndian.PutUint64(flagBytes[:], w.flags)
	binary.BigEndian.PutUint64(formatBytes[:], walletFormatVersion)
	var mk *MasterKeyRecord
	if opts.Passphrase != nil && *opts.Passphrase != "" && !opts.DisablePrivateKeys {
		// Born encrypted: the master key is written with the settings,
		// so the default keys are sealed from their first write.
		master, rec, err := newMasterKey(*opts.Passphrase)
		if err != nil {
			return nil, &Error{Kind: ErrEncryptionFailed, Err: err, Description: "Error: Wallet created but failed to encrypt."}
		}
		mk = &rec
		w.crypt.rec, w.crypt.master = mk, master
	}
	err := st.Update(ctx, func(tx StoreTx) error {
		if err := tx.PutMeta(metaFormat, formatBytes[:]); err != nil {
			return err
		}
		if err := tx.PutMeta(metaNetwork, []byte(cfg.Net.Name)); err != nil {
			return err
		}
		if mk != nil {
			if err := tx.PutMasterKey(*mk); err != nil {
				return err
			}
		}
		return tx.PutMeta(metaFlags, flagBytes[:])
	})
	if err != nil {
		w.lockAll()
		return nil, storageErr(err)
	}
	if !opts.Blank && !opts.DisablePrivateKeys {
		if err := w.setupDefaultDescriptors(ctx); err != nil {
			w.lockAll()
			return nil, err
		}
	}
	w.lockAll()
	return w, nil
}

// load reads a wallet from its database and rebuilds the in-memory state.
func load(ctx context.Context, cfg Config, st Store) (*Wallet, error) {
	snap, err := st.Load(ctx)
	if err != nil {
		return nil, storageErr(err)
	}
	// The network is checked before anything of the file is parsed, so
	// that a wallet of another network fails with a clear message rather
	// than a parser's (which could quote a private key).
	record, err := checkNetwork(snap, cfg.Net)
	if err != nil {
		return nil, err
	}
	w := newWallet(cfg, st)
	if err := w.restore(snap); err != nil {
		return nil, err
	}
	if record {
		// A file written before the network was recorded gets it on
		// its first load.
		if err := st.Update(ctx, func(tx StoreTx) error {
			return tx.PutMeta(metaNetwork, []byte(cfg.Net.Name))
		}); err != nil {
			w.lockAll()
			return nil, storageErr(err)
		}
	}
	return w, nil
}

func (w *Wallet) close() error {
	w.importMu.Lock()
	defer w.importMu.Unlock()
	if w.isClosed() {
		return nil
	}
	// A failed write of the in-memory position only costs a longer
	// catch-up at the next load, so closing goes on. flushTip takes
	// c.mu, which is taken before w.mu (a Checkpoint holding it reads
	// w.mu to describe transactions): not under w.mu.
	flushErr := w.flushTip(context.Background())
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	w.evsig.shut()
	w.lockNow()
	if err := w.store.Close(); err != nil {
		return err
	}
	return flushErr
}

// PrivateKeysEnabled reports whether the wallet may hold private keys.
func (w *Wallet) PrivateKeysEnabled() bool { return w.flags&FlagDisablePrivateKeys == 0 }

// Info is what getwalletinfo reports about a wallet.
type Info struct {
	Name               string
	KeypoolSize        int64
	KeypoolInternal    int64
	PrivateKeysEnabled bool
	AvoidReuse         bool
	Blank              bool
	ExternalSigner     bool
	// Birthtime is the oldest descriptor timestamp; nil when there is
	// none.
	Birthtime *int64
	Flags     []string
}

// Info returns the wallet's summary.
func (w *Wallet) Info() Info {
	w.mu.RLock()
	defer w.mu.RUnlock()
	in := Info{
		Name:               w.cfg.Name,
		PrivateKeysEnabled: w.flags&FlagDisablePrivateKeys == 0,
		AvoidReuse:         w.flags&FlagAvoidReuse != 0,
		Blank:              w.flags&FlagBlankWallet != 0,
		ExternalSigner:     w.flags&FlagExternalSigner != 0,
		Flags:              []string{},
	}
	for _, f := range flagNames {
		if w.flags&f.flag != 0 {
			in.Flags = append(in.Flags, f.name)
		}
	}
	for k, d := range w.active {
		n := d.rec.RangeEnd - d.rec.NextIndex
		if n < 0 {
			n = 0
		}
		if k.internal {
			in.KeypoolInternal += n
		} else {
			in.KeypoolSize += n
		}
	}
	for _, d := range w.descs {
		if in.Birthtime == nil || d.rec.Timestamp < *in.Birthtime {
			t := d.rec.Timestamp
			in.Birthtime = &t
		}
	}
	if w.replacedBirth != 0 && in.Birthtime != nil && w.replacedBirth < *in.Birthtime {
		t := w.replacedBirth
		in.Birthtime = &t
	}
	return in
}

// Backup writes a consistent copy of the wallet's database to dest.
func (w *Wallet) Backup(ctx context.Context, dest string) error {
	w.importMu.Lock()
	defer w.importMu.Unlock()
	if err := w.store.Backup(ctx, dest); err != nil {
		return &Error{Kind: ErrWallet, Err: err, Description: "Error: Wallet backup failed!"}
	}
	return nil
}

// SetFlag sets or clears a wallet flag and stores the flags.
func (w *Wallet) SetFlag(ctx context.Context, flag uint64, value bool) error {
	w.importMu.Lock()
	defer w.importMu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	flags := w.flags &^ flag
	if value {
		flags |= flag
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], flags)
	if err := w.store.Update(ctx, func(tx StoreTx) error { return tx.PutMeta(metaFlags, b[:]) }); err != nil {
		return storageErr(err)
	}
	w.flags = flags
	return nil
}

// FlagSet reports whether a wallet flag is set.
func (w *Wallet) FlagSet(flag uint64) bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.flags&flag != 0
}

// FlagByName returns the flag Core names name (its STRING_TO_WALLET_FLAG).
func FlagByName(name string) (uint64, bool) {
	for _, f := range flagNames {
		if f.name == name {
			return f.flag, true
		}
	}
	return 0, false
}
