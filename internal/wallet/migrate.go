package wallet

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Migrate answers Core's migratewallet for the wallet called name.
// descwallet has descriptor wallets only, so there is never anything to
// migrate: a loaded wallet, or one on disk (or in the Catalog), is Core's
// "already a descriptor wallet"; a name that is nowhere is Core's "does
// not exist"; a name Core's wallet path rules refuse gets Core's message.
// A Berkeley DB file (a legacy wallet of Core) is not read: its migration
// is left to Core. Every failure is a -4 wallet error, as in Core.
func (m *Manager) Migrate(ctx context.Context, name string) error {
	already := walletErr(ErrWallet, "Error: This wallet is already a descriptor wallet")
	missing := walletErr(ErrWallet, "Error: Wallet does not exist")
	if _, ok := m.Get(name); ok {
		return already
	}
	dir := m.walletPath(name)
	if cat, ok := m.cfg.Opener.(Catalog); ok {
		found, err := cat.Exists(ctx, filepath.Join(dir, DatabaseFile))
		if err != nil {
			return storageErr(err)
		}
		if !found {
			return missing
		}
		return already
	}
	// Core's GetWalletPath: a folder, a link to one, a place where one
	// could be made, or the plain name of a file of the wallets folder.
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return missing
	case err != nil:
		return storageErr(err)
	case st.IsDir():
	case st.Mode()&fs.ModeSymlink != 0:
		if t, err := os.Stat(dir); err != nil || !t.IsDir() {
			return m.badWalletPath(name)
		}
	case st.Mode().IsRegular() && filepath.Base(name) == name:
	default:
		return m.badWalletPath(name)
	}
	data := dir
	if st.IsDir() || st.Mode()&fs.ModeSymlink != 0 {
		data = filepath.Join(dir, "wallet.dat")
	}
	if isBDBFile(data) {
		return walletErr(ErrWallet, "Error: This is a Berkeley DB (legacy) wallet file, which descwallet cannot read; migrate it with Bitcoin Core")
	}
	return already
}

// badWalletPath is Core's error for a wallet name that names no usable
// place.
func (m *Manager) badWalletPath(name string) error {
	return walletErr(ErrWallet, "Invalid -wallet path '"+name+"'. -wallet path should point to a directory where "+
		"wallet.dat and database/log.?????????? files can be stored, a location where such a directory could be "+
		"created, or (for backwards compatibility) the name of an existing data file in -walletdir ("+
		cppQuoted(m.WalletsDir())+")")
}

// cppQuoted quotes s as C++'s std::quoted does: double quotes around it,
// a backslash before each double quote and backslash inside.
func cppQuoted(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// isBDBFile is Core's IsBDBFile: a file of at least 4 KiB with the
// Berkeley DB B-tree magic number at offset 12, in either byte order.
func isBDBFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() < 4096 {
		return false
	}
	var b [4]byte
	if _, err := f.ReadAt(b[:], 12); err != nil && err != io.EOF {
		return false
	}
	v := binary.LittleEndian.Uint32(b[:])
	return v == 0x00053162 || v == 0x62310500
}
