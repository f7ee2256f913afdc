package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/atomicfile"
)

// DatabaseFile is the name of the database file inside a wallet's folder.
const DatabaseFile = "wallet.sqlite"

// DefaultKeypool is the number of addresses derived ahead of the next index
// of a ranged descriptor (Core's -keypool default).
const DefaultKeypool = 1000

// ManagerConfig configures a Manager.
type ManagerConfig struct {
	// NetDir is the network folder of the data directory (the data
	// directory itself on mainnet, <datadir>/regtest on regtest, ...).
	// Wallets live in NetDir/wallets and the startup list in
	// NetDir/settings.json.
	NetDir string
	// Net is the network.
	Net *chaincfg.Params
	// Opener creates and opens wallet databases.
	Opener Opener
	// Keypool is the look-ahead of ranged descriptors; 0 means
	// DefaultKeypool.
	Keypool int
	// Now returns the time that "now" means for import timestamps: the
	// median time past of the last processed block. Nil means the
	// network's genesis block time (no chain yet).
	Now func() int64
	// Log and DescLog receive the wallets' debug lines (WLLT and DESC);
	// nil discards them.
	Log, DescLog *slog.Logger
	// Options are the spending options; nil means Core's defaults.
	Options *Options
	// TxNotify, when set, is told of the wallets' transactions that came
	// in or changed state (see Config.TxNotify); it must not block.
	TxNotify func(TxNotice)
	// EventDepths are the confirmation depths the event logs report,
	// ascending; empty means DefaultEventDepths.
	EventDepths []int32
}

// Manager keeps the loaded wallets of a node.
type Manager struct {
	cfg ManagerConfig

	mu      sync.Mutex
	loaded  []*Wallet // in load order
	pending map[string]bool
	// dirs maps the real path (symbolic links resolved) of the folder of
	// each loaded or pending wallet to its name, so that one folder is
	// never open under two names.
	dirs map[string]string
}

// lockedMessage is Core's message for a wallet database that is open
// elsewhere (its SQLite exclusive lock fails), with the line break Core's
// text ends with.
const lockedMessage = "Wallet file verification failed. SQLiteDatabase: Unable to obtain an exclusive lock on the database, is it being used by another instance of Bitcoin Core?\n"

func lockedErr(err error) error {
	return &Error{Kind: ErrWallet, Err: err, Description: lockedMessage}
}

// NewManager returns a manager with no wallet loaded.
func NewManager(cfg ManagerConfig) *Manager {
	if cfg.Keypool <= 0 {
		cfg.Keypool = DefaultKeypool
	}
	if cfg.Options == nil {
		o := DefaultOptions()
		cfg.Options = &o
	}
	if cfg.Now == nil {
		genesis := cfg.Net.GenesisBlock.Header.Timestamp.Unix()
		cfg.Now = func() int64 { return genesis }
	}
	return &Manager{cfg: cfg, pending: map[string]bool{}, dirs: map[string]string{}}
}

// WalletsDir returns the folder that holds the wallets.
func (m *Manager) WalletsDir() string { return filepath.Join(m.cfg.NetDir, "wallets") }

// walletPath returns the folder of the wallet called name. As in Core, a
// name that is an absolute path is used as is, and any other name is taken
// relative to the wallets folder (the name "" is the folder itself).
func (m *Manager) walletPath(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	// Core joins an empty name as the wallets directory itself, with no
	// trailing separator.
	return filepath.Join(m.WalletsDir(), name)
}

// CreateOptions are the choices of createwallet.
type CreateOptions struct {
	DisablePrivateKeys bool
	Blank              bool
	AvoidReuse         bool
	// Passphrase, when not nil, asks for an encrypted wallet.
	Passphrase *string
	// ExternalSigner asks for a wallet driven by an external signer.
	ExternalSigner bool
	// LoadOnStartup, when not nil, adds the wallet to (true) or removes it
	// from (false) the startup list.
	LoadOnStartup *bool
}

// Create makes, stores and loads a new wallet. It returns the wallet and
// Core's warnings.
func (m *Manager) Create(ctx context.Context, name string, opts CreateOptions) (*Wallet, []string, error) {
	var warnings []string
	if opts.Passphrase != nil {
		if *opts.Passphrase == "" {
			warnings = append(warnings, "Empty string given as passphrase, wallet will not be encrypted.")
		} else if opts.DisablePrivateKeys {
			return nil, nil, walletErr(ErrWallet, "Passphrase provided but private keys are disabled. A passphrase is only used to encrypt private keys, so cannot be used for wallets with private keys disabled.")
		}
	}
	if opts.ExternalSigner && !opts.DisablePrivateKeys {
		return nil, nil, walletErr(ErrWallet, "Private keys must be disabled when using an external signer")
	}

	if !m.reserve(name) {
		return nil, nil, walletErr(ErrWallet, "Wallet file verification failed. Failed to create database path '"+m.walletPath(name)+"'. Database already exists.")
	}
	defer m.release(name)

	dir := m.walletPath(name)
	dbPath := filepath.Join(dir, DatabaseFile)
	if m.dbExists(ctx, dbPath) {
		return nil, nil, walletErr(ErrWallet, "Wallet file verification failed. Failed to create database path '"+dir+"'. Database already exists.")
	}
	if opts.ExternalSigner {
		// Core, built with external signer support (its default), finds
		// no signer to ask for descriptors (descwallet has no -signer)
		// and its exception reaches the client as -1. Core has made the
		// wallet's database by then and leaves it behind; nothing is
		// made here.
		return nil, nil, walletErr(ErrMisc, "restart bitcoind with -signer=<cmd>")
	}
	if _, ok := m.cfg.Opener.(Catalog); !ok {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, nil, walletErr(ErrWallet, "Wallet file verification failed. Failed to create database path '"+dir+"'. "+err.Error())
		}
	}
	real, ok := m.claimDir(dir, name)
	if !ok {
		return nil, nil, walletErr(ErrWallet, "Wallet file verification failed. Failed to create database path '"+dir+"'. Database already exists.")
	}
	defer m.unclaimDir(real, name)
	// The database is built under a temporary name and renamed into place
	// only once it holds the settings and every default descriptor, so
	// that a crash leaves either the whole wallet or none.
	st, err := m.cfg.Opener.Create(ctx, dbPath)
	if err != nil {
		if errors.Is(err, ErrStoreLocked) {
			return nil, nil, lockedErr(err)
		}
		if m.dbExists(ctx, dbPath) && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, &Error{Kind: ErrWallet, Err: err, Description: "Wallet file verification failed. Failed to create database path '" + dir + "'. Database already exists."}
		}
		return nil, nil, storageErr(err)
	}
	w, err := create(ctx, m.walletConfig(name), st, opts)
	if err == nil {
		if perr := st.Publish(ctx); perr != nil {
			w.lockAll()
			err = storageErr(perr)
		}
	}
	if err != nil {
		// Closing an unpublished database removes it.
		st.Close()
		return nil, nil, err
	}
	m.add(w, real)
	if err := m.updateStartup(name, opts.LoadOnStartup); err != nil {
		warnings = append(warnings, "Wallet load on startup setting could not be updated, so wallet may not be loaded next node startup.")
	}
	return w, warnings, nil
}

// realDir resolves the symbolic links of an existing folder; when that
// fails, the cleaned absolute path stands for it.
func realDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		if a, err := filepath.Abs(r); err == nil {
			return a
		}
		return r
	}
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return filepath.Clean(dir)
}

// claimDir records that the wallet called name is being opened from dir;
// false when a wallet of another name is loaded or pending from the same
// folder.
func (m *Manager) claimDir(dir, name string) (string, bool) {
	real := realDir(dir)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, busy := m.dirs[real]; busy {
		return real, false
	}
	m.dirs[real] = name
	return real, true
}

// unclaimDir drops the claim of claimDir unless the wallet got loaded.
func (m *Manager) unclaimDir(real, name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range m.loaded {
		if w.Name() == name {
			return
		}
	}
	if m.dirs[real] == name {
		delete(m.dirs, real)
	}
}

func (m *Manager) walletConfig(name string) Config {
	return Config{Name: name, Net: m.cfg.Net, Keypool: m.cfg.Keypool, Now: m.cfg.Now,
		Log: m.cfg.Log, DescLog: m.cfg.DescLog, Options: m.cfg.Options, TxNotify: m.cfg.TxNotify,
		EventDepths: m.cfg.EventDepths}
}

// reserve marks name as being created or loaded; false when it is loaded
// or busy.
func (m *Manager) reserve(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pending[name] {
		return false
	}
	for _, w := range m.loaded {
		if w.Name() == name {
			return false
		}
	}
	m.pending[name] = true
	return true
}

func (m *Manager) release(name string) {
	m.mu.Lock()
	delete(m.pending, name)
	m.mu.Unlock()
}

func (m *Manager) add(w *Wallet, real string) {
	m.mu.Lock()
	m.loaded = append(m.loaded, w)
	m.dirs[real] = w.Name()
	m.mu.Unlock()
	w.mu.RLock()
	descs := len(w.descs)
	w.mu.RUnlock()
	w.debug(w.cfg.Log, "wallet loaded", "descriptors", descs)
}

// forget drops the folder claim of the wallet called name.
func (m *Manager) forget(name string) {
	for real, n := range m.dirs {
		if n == name {
			delete(m.dirs, real)
		}
	}
}

// Load opens a wallet from disk. It returns Core's warnings.
func (m *Manager) Load(ctx context.Context, name string, loadOnStartup *bool) (*Wallet, []string, error) {
	if _, ok := m.Get(name); ok {
		return nil, nil, walletErr(ErrAlreadyLoaded, "Wallet \""+name+"\" is already loaded.")
	}
	if !m.reserve(name) {
		return nil, nil, walletErr(ErrWallet, "Wallet already loading.")
	}
	defer m.release(name)
	w, real, err := m.open(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	m.add(w, real)
	m.unclaimDir(real, name)
	var warnings []string
	if err := m.updateStartup(name, loadOnStartup); err != nil {
		warnings = append(warnings, "Wallet load on startup setting could not be updated, so wallet may not be loaded next node startup.")
	}
	return w, warnings, nil
}

func (m *Manager) open(ctx context.Context, name string) (*Wallet, string, error) {
	dir := m.walletPath(name)
	dbPath := filepath.Join(dir, DatabaseFile)
	if cat, ok := m.cfg.Opener.(Catalog); ok {
		found, err := cat.Exists(ctx, dbPath)
		if err != nil {
			return nil, "", storageErr(err)
		}
		if !found {
			return nil, "", walletErr(ErrNotFound, "Wallet file verification failed. Failed to load database path '"+dir+"'. Path does not exist.")
		}
	} else {
		st, err := os.Stat(dir)
		if err != nil || !st.IsDir() {
			return nil, "", walletErr(ErrNotFound, "Wallet file verification failed. Failed to load database path '"+dir+"'. Path does not exist.")
		}
		if _, err := os.Stat(dbPath); err != nil {
			return nil, "", walletErr(ErrNotFound, "Wallet file verification failed. Failed to load database path '"+dir+"'. Data is not in recognized format.")
		}
	}
	// The same folder under another name (an absolute path, a symbolic
	// link) is the same wallet: Core's SQLite lock refuses it.
	real, ok := m.claimDir(dir, name)
	if !ok {
		return nil, "", lockedErr(nil)
	}
	s, err := m.cfg.Opener.Open(ctx, dbPath)
	if err != nil {
		m.unclaimDir(real, name)
		if errors.Is(err, ErrStoreLocked) {
			return nil, "", lockedErr(err)
		}
		return nil, "", &Error{Kind: ErrWallet, Err: err, Description: "Wallet file verification failed. Failed to load database path '" + dir + "'. Data is not in recognized format."}
	}
	w, err := load(ctx, m.walletConfig(name), s)
	if err != nil {
		s.Close()
		m.unclaimDir(real, name)
		return nil, "", err
	}
	return w, real, nil
}

// Unload closes a loaded wallet.
func (m *Manager) Unload(ctx context.Context, name string, loadOnStartup *bool) ([]string, error) {
	m.mu.Lock()
	var w *Wallet
	for i, x := range m.loaded {
		if x.Name() == name {
			w = x
			m.loaded = append(m.loaded[:i:i], m.loaded[i+1:]...)
			break
		}
	}
	m.mu.Unlock()
	if w != nil {
		// The folder is free again once the database is closed.
		defer func() {
			m.mu.Lock()
			m.forget(name)
			m.mu.Unlock()
		}()
	}
	if w == nil {
		return nil, walletErr(ErrNotFound, "Requested wallet does not exist or is not loaded")
	}
	var warnings []string
	if err := m.updateStartup(name, loadOnStartup); err != nil {
		warnings = append(warnings, "Wallet load on startup setting could not be updated, so wallet may not be loaded next node startup.")
	}
	if err := w.close(); err != nil {
		return warnings, storageErr(err)
	}
	w.debug(w.cfg.Log, "wallet unloaded")
	return warnings, nil
}

// Get returns the loaded wallet called name.
func (m *Manager) Get(name string) (*Wallet, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range m.loaded {
		if w.Name() == name {
			return w, true
		}
	}
	return nil, false
}

// List returns the names of the loaded wallets in load order.
func (m *Manager) List() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, len(m.loaded))
	for i, w := range m.loaded {
		names[i] = w.Name()
	}
	return names
}

// Resolve picks the wallet of a request: the one named by the URI when
// fromURI is set, else the only loaded wallet. The errors are Core's -18
// and -19.
func (m *Manager) Resolve(name string, fromURI bool) (*Wallet, error) {
	if fromURI {
		if w, ok := m.Get(name); ok {
			return w, nil
		}
		return nil, walletErr(ErrNotFound, "Requested wallet does not exist or is not loaded")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch len(m.loaded) {
	case 1:
		return m.loaded[0], nil
	case 0:
		return nil, walletErr(ErrNotFound, "No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created)")
	}
	return nil, walletErr(ErrNotSpecified, "Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path.")
}

// ListDir returns the names of the wallets found in the wallets folder,
// sorted.
func (m *Manager) ListDir() ([]string, error) {
	root := m.WalletsDir()
	var names []string
	if cat, ok := m.cfg.Opener.(Catalog); ok {
		paths, err := cat.List(context.Background())
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			if rel == "." {
				rel = ""
			}
			names = append(names, filepath.ToSlash(rel))
		}
		sort.Strings(names)
		return names, nil
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if st, err := os.Stat(filepath.Join(path, DatabaseFile)); err == nil && st.Mode().IsRegular() {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return nil
			}
			if rel == "." {
				rel = ""
			}
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// settings is the node's persistent settings file, as Core's
// settings.json: the wallets to load at startup.
type settings struct {
	Wallet []string `json:"wallet"`
}

func (m *Manager) settingsPath() string { return filepath.Join(m.cfg.NetDir, "settings.json") }

func (m *Manager) readSettings() (map[string]json.RawMessage, []string, error) {
	all := map[string]json.RawMessage{}
	data, err := os.ReadFile(m.settingsPath())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return all, nil, nil
		}
		return nil, nil, err
	}
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, nil, err
	}
	var names []string
	if raw, ok := all["wallet"]; ok {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			names = []string{one}
		} else if err := json.Unmarshal(raw, &names); err != nil {
			return nil, nil, err
		}
	}
	return all, names, nil
}

// updateStartup adds name to or removes it from the startup list; nil
// leaves the list alone.
func (m *Manager) updateStartup(name string, add *bool) error {
	if add == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	all, names, err := m.readSettings()
	if err != nil {
		return err
	}
	var out []string
	found := false
	for _, n := range names {
		if n == name {
			found = true
			if !*add {
				continue
			}
		}
		out = append(out, n)
	}
	if *add && !found {
		out = append(out, name)
	}
	if out == nil {
		out = []string{}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return err
	}
	all["wallet"] = raw
	data, err := json.MarshalIndent(all, "", "    ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(m.cfg.NetDir, 0o700); err != nil {
		return err
	}
	// A crash leaves the old list or the new one, never a torn file.
	return atomicfile.WriteFile(m.settingsPath(), append(data, '\n'))
}

// LoadStartup loads the wallets named on the command line (extra) and in
// the startup list, in that order, each once. It returns the first error
// for each wallet that fails, keyed by name.
func (m *Manager) LoadStartup(ctx context.Context, extra []string) map[string]error {
	_, names, err := m.readSettings()
	failures := map[string]error{}
	if err != nil {
		failures["settings.json"] = err
	}
	seen := map[string]bool{}
	for _, n := range append(append([]string{}, extra...), names...) {
		if seen[n] {
			continue
		}
		seen[n] = true
		if _, _, err := m.Load(ctx, n, nil); err != nil {
			failures[n] = err
		}
	}
	return failures
}

// Close unloads every wallet.
func (m *Manager) Close() error {
	m.mu.Lock()
	ws := m.loaded
	m.loaded = nil
	m.dirs = map[string]string{}
	m.mu.Unlock()
	var errs []error
	for _, w := range ws {
		if err := w.close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// restoreTemp names the file a restore copies the backup into before it
// renames it to DatabaseFile; one left over is the remnant of a crash.
const restoreTemp = DatabaseFile + ".restoring"

// Restore copies a backup file into a new wallet folder and loads it. As
// in Core, a wallet folder that exists already (even empty) is refused with
// ErrAlreadyExists and left alone. The copy is synced and renamed into
// place, so a crash leaves no partial database; when loading fails, the
// folder the restore made is removed, as Core does.
func (m *Manager) Restore(ctx context.Context, name, backupFile string, loadOnStartup *bool) (*Wallet, []string, error) {
	src, err := os.Open(backupFile)
	if err != nil {
		return nil, nil, &Error{Kind: ErrInvalidParameter, Err: err,
			Description: "Backup file does not exist"}
	}
	defer src.Close()
	if !m.reserve(name) {
		return nil, nil, restoreExists(m.walletPath(name))
	}
	dir := m.walletPath(name)
	dbPath := filepath.Join(dir, DatabaseFile)
	if m.dbExists(ctx, dbPath) {
		m.release(name)
		return nil, nil, restoreExists(dir)
	}
	if cat, ok := m.cfg.Opener.(Catalog); ok {
		return m.restoreCatalog(ctx, cat, name, dir, dbPath, backupFile, loadOnStartup)
	}
	// The folder is made here, atomically, so that one that exists in any
	// form is refused rather than written into.
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		m.release(name)
		return nil, nil, storageErr(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		m.release(name)
		if errors.Is(err, fs.ErrExist) {
			return nil, nil, restoreExists(dir)
		}
		return nil, nil, storageErr(err)
	}
	undo := func() { os.RemoveAll(dir) }
	if err := copyFileSync(dbPath, filepath.Join(dir, restoreTemp), src); err != nil {
		undo()
		m.release(name)
		return nil, nil, storageErr(err)
	}
	m.release(name)
	w, warnings, err := m.Load(ctx, name, loadOnStartup)
	if err != nil {
		if !errors.Is(err, ErrAlreadyLoaded) && !isLocked(err) {
			undo()
		}
		return nil, nil, err
	}
	return w, warnings, nil
}

// restoreExists is restorewallet's error for a wallet folder (or, in a
// Catalog, a wallet) that exists, in Core's words.
func restoreExists(dir string) error {
	return walletErr(ErrAlreadyExists, "Failed to create database path '"+dir+"'. Database already exists.")
}

// restoreCatalog is Restore into a Catalog: the catalog copies the backup
// in, and a wallet that then fails to load is removed again.
func (m *Manager) restoreCatalog(ctx context.Context, cat Catalog, name, dir, dbPath, backupFile string, loadOnStartup *bool) (*Wallet, []string, error) {
	err := cat.Restore(ctx, dbPath, backupFile)
	m.release(name)
	if err != nil {
		if errors.Is(err, ErrStoreLocked) {
			return nil, nil, lockedErr(err)
		}
		if errors.Is(err, ErrBackupFormat) {
			return nil, nil, &Error{Kind: ErrWallet, Err: err, Description: "Wallet file verification failed. Failed to load database path '" + dir + "'. Data is not in recognized format."}
		}
		return nil, nil, storageErr(err)
	}
	w, warnings, err := m.Load(ctx, name, loadOnStartup)
	if err != nil {
		if !errors.Is(err, ErrAlreadyLoaded) && !isLocked(err) {
			cat.Remove(ctx, dbPath)
		}
		return nil, nil, err
	}
	return w, warnings, nil
}

// dbExists reports whether a wallet database is at dbPath: a file, or
// for a Catalog a database it knows.
func (m *Manager) dbExists(ctx context.Context, dbPath string) bool {
	if cat, ok := m.cfg.Opener.(Catalog); ok {
		found, err := cat.Exists(ctx, dbPath)
		return err == nil && found
	}
	_, err := os.Stat(dbPath)
	return err == nil
}

// isLocked reports whether err is the refusal of a database open
// elsewhere.
func isLocked(err error) bool {
	var we *Error
	return errors.As(err, &we) && we.Description == lockedMessage
}

// copyFileSync copies src to temp (mode 0600), syncs it, renames it to dst
// (which must not exist) and syncs the folder.
func copyFileSync(dst, temp string, src *os.File) error {
	os.Remove(temp)
	f, err := os.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.ReadFrom(src)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if _, serr := os.Lstat(dst); serr == nil {
			err = fs.ErrExist
		}
	}
	if err == nil {
		err = os.Rename(temp, dst)
	}
	if err != nil {
		os.Remove(temp)
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(dst))
}

// Recover cleans the wallets folder after a crash, before any wallet is
// loaded: remnants of a createwallet or restorewallet that did not finish
// are removed (with their folder when nothing else is left in it), and a
// database that was not closed finishes its pending work (the rewrite that
// follows encryption), so that no overwritten secret waits on disk for the
// wallet's next load. It returns the paths it could not clean.
func (m *Manager) Recover(ctx context.Context) map[string]error {
	if cat, ok := m.cfg.Opener.(Catalog); ok {
		return cat.RecoverAll(ctx)
	}
	root := m.WalletsDir()
	failures := map[string]error{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil
		}
		ours := false
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), DatabaseFile) {
				ours = true
			}
		}
		if !ours {
			return nil
		}
		removed := false
		if _, err := os.Lstat(filepath.Join(path, restoreTemp)); err == nil {
			os.Remove(filepath.Join(path, restoreTemp))
			removed = true
		}
		r, err := m.cfg.Opener.Recover(ctx, filepath.Join(path, DatabaseFile))
		if err != nil {
			failures[path] = err
			return nil
		}
		if (r || removed) && path != root {
			// Removes the folder only if the crashed create left it
			// empty.
			os.Remove(path)
		}
		return nil
	})
	return failures
}

// Options returns the node's spending options (read only).
func (m *Manager) Options() *Options { return m.cfg.Options }
