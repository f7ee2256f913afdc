package wallet

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/descwallet/descwallet/descriptor"
)

// Wallet encryption.
//
// A random 32-byte master key seals every private key record with
// AES-256-GCM (a fresh 12-byte nonce per record; the descriptor id and key
// id are authenticated with it, so a sealed record cannot be moved to
// another row). The master key itself is sealed with AES-256-GCM under a
// key derived from the passphrase by Argon2id; the derivation's parameters
// and salt are stored beside it, so they can be raised later without
// breaking older wallets. A wrong passphrase fails the authentication of the
// wrapped master key. Changing the passphrase rewraps the master key only.
//
// While the wallet is unlocked the master key and the decrypted keys live in
// memory; locking drops the private descriptors and wipes the buffers the
// wallet owns.

// Key derivation parameters of new wallets and new passphrases: Argon2id
// with 3 passes over 64 MiB on 2 lanes (RFC 9106's second recommended
// setting, with 2 lanes instead of 4), about a quarter of a second on a
// small machine.
const (
	kdfArgon2id     = "argon2id"
	kdfTimeCost     = 3
	kdfMemoryKiB    = 64 * 1024
	kdfThreads      = 2
	kdfSaltLen      = 16
	masterKeyLen    = 32
	gcmNonceLen     = 12
	sealedVersion   = 1
	maxKDFMemoryKiB = 4 * 1024 * 1024 // refuse files asking for more than 4 GiB
	maxKDFTimeCost  = 64
	// MaxUnlockSeconds is Core's clamp of walletpassphrase's timeout.
	MaxUnlockSeconds = 100000000
)

// MasterKeyRecord is the stored wrapped master key (see the store package).
type MasterKeyRecord struct {
	KDF       string
	TimeCost  uint32
	MemoryKiB uint32
	Threads   uint8
	Salt      []byte
	Wrapped   []byte
}

// cryptState is the encryption state of a wallet. Readers hold w.mu for
// reading; changes hold w.importMu and w.mu.
type cryptState struct {
	// rec is the wrapped master key; nil when the wallet is not
	// encrypted.
	rec *MasterKeyRecord
	// master is the master key while unlocked, nil while locked.
	master []byte
	// relockAt is the UNIX time of the automatic relock (Core's
	// nRelockTime), 0 while locked.
	relockAt int64
	// gen numbers unlocks so that a stale timer does not relock a later
	// unlock.
	gen   uint64
	timer *time.Timer
}

// encryptHook, when set (tests only), runs after each record is sealed
// inside the encryption transaction.
var encryptHook func(done, total int)

// encryptCommitHook, when set (tests only), runs once the encryption
// transaction has committed, before the rewrite.
var encryptCommitHook func()

func wipe(b []byte) {
	for i := range b {
		b[i] = 0
	}
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// kdfAAD binds the wrapped master key to its derivation parameters.
func kdfAAD(rec *MasterKeyRecord) []byte {
	b := []byte("descwallet master key v1\x00" + rec.KDF + "\x00")
	b = binary.BigEndian.AppendUint32(b, rec.TimeCost)
	b = binary.BigEndian.AppendUint32(b, rec.MemoryKiB)
	return append(b, rec.Threads)
}

// deriveKEK derives the key that wraps the master key.
func deriveKEK(passphrase string, rec *MasterKeyRecord) ([]byte, error) {
	if rec.KDF != kdfArgon2id {
		return nil, fmt.Errorf("unknown key derivation %q", rec.KDF)
	}
	if rec.TimeCost == 0 || rec.TimeCost > maxKDFTimeCost || rec.MemoryKiB == 0 ||
		rec.MemoryKiB > maxKDFMemoryKiB || rec.Threads == 0 || len(rec.Salt) < 8 {
		return nil, errors.New("key derivation parameters out of bounds")
	}
	pw := []byte(passphrase)
	defer wipe(pw)
	return argon2.IDKey(pw, rec.Salt, rec.TimeCost, rec.MemoryKiB, rec.Threads, masterKeyLen), nil
}

// wrapMasterKey seals master under a key derived from passphrase with a
// fresh salt and the current parameters.
func wrapMasterKey(passphrase string, master []byte) (MasterKeyRecord, error) {
	rec := MasterKeyRecord{KDF: kdfArgon2id, TimeCost: kdfTimeCost, MemoryKiB: kdfMemoryKiB,
		Threads: kdfThreads, Salt: make([]byte, kdfSaltLen)}
	if _, err := rand.Read(rec.Salt); err != nil {
		return rec, err
	}
	kek, err := deriveKEK(passphrase, &rec)
	if err != nil {
		return rec, err
	}
	defer wipe(kek)
	aead, err := newGCM(kek)
	if err != nil {
		return rec, err
	}
	nonce := make([]byte, gcmNonceLen)
	if _, err := rand.Read(nonce); err != nil {
		return rec, err
	}
	rec.Wrapped = aead.Seal(nonce, nonce, master, kdfAAD(&rec))
	return rec, nil
}

// Core's answers to a wrong passphrase holding a NUL byte: versions
// before 25.0 cut a passphrase at its first NUL, so the user is told to
// try the part before it.
const (
	msgNullInPassphrase = "Error: The wallet passphrase entered is incorrect. " +
		"It contains a null character (ie - a zero byte). " +
		"If the passphrase was set with a version of this software prior to 25.0, " +
		"please try again with only the characters up to — but not including — " +
		"the first null character. If this is successful, please set a new " +
		"passphrase to avoid this issue in the future."
	msgNullInOldPassphrase = "Error: The old wallet passphrase entered is incorrect. " +
		"It contains a null character (ie - a zero byte). " +
		"If the old passphrase was set with a version of this software prior to 25.0, " +
		"please try again with only the characters up to — but not including — " +
		"the first null character."
)

// openMaster opens the wallet's master key record with passphrase, with
// Core's messages for a wrong passphrase and for a record it cannot use.
func (w *Wallet) openMaster(passphrase string) ([]byte, error) {
	w.mu.RLock()
	rec := w.crypt.rec
	w.mu.RUnlock()
	master, ok, err := unwrapMasterKey(passphrase, rec)
	if err != nil {
		return nil, &Error{Kind: ErrWallet, Err: err, Description: "Error: The wallet's encryption data is not usable."}
	}
	if !ok {
		return nil, walletErr(ErrPassphraseIncorrect, "Error: The wallet passphrase entered was incorrect.")
	}
	return master, nil
}

// unwrapMasterKey opens the master key with passphrase; ok is false for a
// wrong passphrase.
func unwrapMasterKey(passphrase string, rec *MasterKeyRecord) (master []byte, ok bool, err error) {
	kek, err := deriveKEK(passphrase, rec)
	if err != nil {
		return nil, false, err
	}
	defer wipe(kek)
	aead, err := newGCM(kek)
	if err != nil {
		return nil, false, err
	}
	if len(rec.Wrapped) < gcmNonceLen+aead.Overhead() {
		return nil, false, errors.New("wrapped master key too short")
	}
	master, err = aead.Open(nil, rec.Wrapped[:gcmNonceLen], rec.Wrapped[gcmNonceLen:], kdfAAD(rec))
	if err != nil {
		return nil, false, nil
	}
	if len(master) != masterKeyLen {
		wipe(master)
		return nil, false, errors.New("master key has the wrong length")
	}
	return master, true, nil
}

// secretAAD binds a sealed secret to its row.
func secretAAD(s *SecretRecord) []byte {
	b := []byte("descwallet secret v1\x00")
	b = append(b, s.DescriptorID[:]...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(s.KeyID)))
	return append(b, s.KeyID...)
}

// sealSecret returns s with its secret sealed under master: a version
// byte, the nonce, then the ciphertext with its tag.
func sealSecret(aead cipher.AEAD, s SecretRecord) (SecretRecord, error) {
	out := make([]byte, 1+gcmNonceLen, 1+gcmNonceLen+len(s.Secret)+aead.Overhead())
	out[0] = sealedVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return SecretRecord{}, err
	}
	sealed := s
	sealed.KeyID = append([]byte(nil), s.KeyID...)
	sealed.Secret = aead.Seal(out, out[1:], s.Secret, secretAAD(&s))
	return sealed, nil
}

// openSecret returns s with its secret opened.
func openSecret(aead cipher.AEAD, s SecretRecord) (SecretRecord, error) {
	if len(s.Secret) < 1+gcmNonceLen+aead.Overhead() || s.Secret[0] != sealedVersion {
		return SecretRecord{}, errors.New("sealed secret malformed")
	}
	plain, err := aead.Open(nil, s.Secret[1:1+gcmNonceLen], s.Secret[1+gcmNonceLen:], secretAAD(&s))
	if err != nil {
		return SecretRecord{}, errors.New("sealed secret does not open")
	}
	s.Secret = plain
	return s, nil
}

// plainSecrets returns the secrets of a snapshot that restore may read:
// all of them for a wallet that is not encrypted, none for an encrypted one
// (which loads locked). It records the snapshot's master key.
func (w *Wallet) plainSecrets(snap *Snapshot) []SecretRecord {
	w.crypt.rec = snap.MasterKey
	if snap.MasterKey != nil {
		return nil
	}
	return snap.Secrets
}

// sealRecords seals freshly built secret records when the wallet is
// encrypted (and wipes the plain ones); for a wallet that is not encrypted
// it returns them as they are. The caller holds importMu.
func (w *Wallet) sealRecords(recs []SecretRecord) ([]SecretRecord, error) {
	w.mu.RLock()
	enc, master := w.crypt.rec != nil, w.crypt.master
	w.mu.RUnlock()
	if !enc {
		return recs, nil
	}
	defer func() {
		for _, r := range recs {
			wipe(r.Secret)
		}
	}()
	if master == nil {
		return nil, unlockNeeded()
	}
	aead, err := newGCM(master)
	if err != nil {
		return nil, err
	}
	out := make([]SecretRecord, len(recs))
	for i, r := range recs {
		if out[i], err = sealSecret(aead, r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func unlockNeeded() error {
	return walletErr(ErrUnlockNeeded, "Error: Please enter the wallet passphrase with walletpassphrase first.")
}

// IsEncrypted reports whether the wallet has a passphrase.
func (w *Wallet) IsEncrypted() bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.crypt.rec != nil
}

// IsLocked reports whether the wallet is encrypted and locked.
func (w *Wallet) IsLocked() bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.lockedLocked()
}

// lockedLocked is IsLocked for a caller holding w.mu.
func (w *Wallet) lockedLocked() bool { return w.crypt.rec != nil && w.crypt.master == nil }

// EnsureUnlocked returns Core's -13 error when the wallet is encrypted and
// locked (Core's EnsureWalletIsUnlocked). Every use of private keys checks
// it first.
func (w *Wallet) EnsureUnlocked() error {
	if w.IsLocked() {
		return unlockNeeded()
	}
	return nil
}

// UnlockedUntil returns getwalletinfo's unlocked_until (the UNIX time of the
// automatic relock, 0 while locked) and whether the wallet is encrypted
// (the field is shown only then).
func (w *Wallet) UnlockedUntil() (int64, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.crypt.rec == nil {
		return 0, false
	}
	return w.crypt.relockAt, true
}

// Unlock opens the wallet with passphrase for timeout seconds (Core's
// walletpassphrase): errors in Core's order, the timeout clamped to
// MaxUnlockSeconds. Unlocking an unlocked wallet sets a new relock time.
func (w *Wallet) Unlock(ctx context.Context, passphrase string, timeout int64) error {
	if !w.IsEncrypted() {
		return walletErr(ErrWrongEncState, "Error: running with an unencrypted wallet, but walletpassphrase was called.")
	}
	if timeout < 0 {
		return walletErr(ErrInvalidParameter, "Timeout cannot be negative.")
	}
	if timeout > MaxUnlockSeconds {
		timeout = MaxUnlockSeconds
	}
	if passphrase == "" {
		return walletErr(ErrInvalidParameter, "passphrase cannot be empty")
	}
	w.importMu.Lock()
	defer w.importMu.Unlock()
	if w.isClosed() {
		return walletErr(ErrNotFound, "Requested wallet does not exist or is not loaded")
	}
	master, err := w.openMaster(passphrase)
	if err != nil {
		if errors.Is(err, ErrPassphraseIncorrect) && strings.IndexByte(passphrase, 0) >= 0 {
			return walletErr(ErrPassphraseIncorrect, msgNullInPassphrase)
		}
		return err
	}
	w.mu.RLock()
	already := w.crypt.master != nil
	w.mu.RUnlock()
	if already {
		wipe(master)
	} else if err := w.openKeys(ctx, master); err != nil {
		wipe(master)
		return err
	}
	w.mu.Lock()
	w.crypt.gen++
	gen := w.crypt.gen
	w.crypt.relockAt = time.Now().Unix() + timeout
	if w.crypt.timer != nil {
		w.crypt.timer.Stop()
	}
	w.crypt.timer = time.AfterFunc(time.Duration(timeout)*time.Second, func() { w.relock(gen) })
	w.mu.Unlock()
	return nil
}

// openKeys decrypts every secret with master and gives each descriptor its
// private keys; on success the wallet holds master. The caller holds
// importMu.
func (w *Wallet) openKeys(ctx context.Context, master []byte) error {
	aead, err := newGCM(master)
	if err != nil {
		return err
	}
	var sealed []SecretRecord
	err = w.store.Update(ctx, func(tx StoreTx) error {
		var err error
		sealed, err = tx.Secrets()
		return err
	})
	if err != nil {
		return storageErr(err)
	}
	keys := map[[32]byte]descriptor.KeyMap{}
	privStrings := map[[32]byte][]byte{}
	defer func() {
		for _, m := range keys {
			for id := range m {
				m[id] = descriptor.PrivateKey{}
			}
		}
		for _, b := range privStrings {
			wipe(b)
		}
	}()
	for _, s := range sealed {
		p, err := openSecret(aead, s)
		if err != nil {
			return &Error{Kind: ErrWallet, Err: err, Description: "Error: The wallet's encrypted keys do not open."}
		}
		if string(p.KeyID) == privateDescriptorKeyID {
			privStrings[p.DescriptorID] = p.Secret
			continue
		}
		addKeyRecord(keys, p)
		wipe(p.Secret)
	}
	w.mu.RLock()
	descs := append([]*walletDesc(nil), w.descs...)
	w.mu.RUnlock()
	opened := make([]*descriptor.Descriptor, len(descs))
	for i, wd := range descs {
		d := wd.d
		if ps, ok := privStrings[wd.rec.ID]; ok {
			parsed, err := descriptor.Parse(string(ps), w.cfg.Net)
			if err != nil {
				return &Error{Kind: ErrWallet, Err: errors.New("stored private descriptor does not parse"),
					Description: "Error: The wallet's encrypted keys do not open."}
			}
			d = parsed
		}
		if m := keys[wd.rec.ID]; len(m) > 0 {
			d = d.WithPrivateKeys(m)
		}
		opened[i] = d
	}
	w.mu.Lock()
	for i, wd := range descs {
		wd.d = opened[i]
		wd.expansions.wipe()
	}
	w.crypt.master = master
	w.mu.Unlock()
	return nil
}

// relock is the automatic relock of the unlock numbered gen.
func (w *Wallet) relock(gen uint64) {
	w.importMu.Lock()
	defer w.importMu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.crypt.gen != gen {
		return
	}
	w.lockNow()
}

// lockNow drops the master key and every private key. The caller holds
// importMu and w.mu.
func (w *Wallet) lockNow() {
	if w.crypt.timer != nil {
		w.crypt.timer.Stop()
		w.crypt.timer = nil
	}
	w.crypt.gen++
	w.crypt.relockAt = 0
	if w.crypt.master == nil {
		return
	}
	wipe(w.crypt.master)
	w.crypt.master = nil
	for _, wd := range w.descs {
		if wd.d.HasPrivateKeys() {
			wd.d = wd.d.Public()
		}
		wd.expansions.wipe()
	}
}

// Lock locks an encrypted wallet (Core's walletlock).
func (w *Wallet) Lock() error {
	if !w.IsEncrypted() {
		return walletErr(ErrWrongEncState, "Error: running with an unencrypted wallet, but walletlock was called.")
	}
	w.importMu.Lock()
	defer w.importMu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lockNow()
	return nil
}

// ChangePassphrase rewraps the master key under a new passphrase (Core's
// walletpassphrasechange). The lock state does not change.
func (w *Wallet) ChangePassphrase(ctx context.Context, oldPass, newPass string) error {
	if !w.IsEncrypted() {
		return walletErr(ErrWrongEncState, "Error: running with an unencrypted wallet, but walletpassphrasechange was called.")
	}
	if oldPass == "" || newPass == "" {
		return walletErr(ErrInvalidParameter, "passphrase cannot be empty")
	}
	// Encryption and passphrase changes of nodes serving the wallet
	// together run one at a time.
	release, err := w.exclusive(ctx)
	if err != nil {
		return err
	}
	defer release()
	w.importMu.Lock()
	defer w.importMu.Unlock()
	master, err := w.openMaster(oldPass)
	if err != nil {
		if errors.Is(err, ErrPassphraseIncorrect) && strings.IndexByte(oldPass, 0) >= 0 {
			return walletErr(ErrPassphraseIncorrect, msgNullInOldPassphrase)
		}
		return err
	}
	defer wipe(master)
	nrec, err := wrapMasterKey(newPass, master)
	if err != nil {
		return &Error{Kind: ErrWallet, Err: err, Description: "Error: Failed to change the wallet passphrase."}
	}
	err = w.store.Update(ctx, func(tx StoreTx) error {
		if err := tx.PutMasterKey(nrec); err != nil {
			return err
		}
		return tx.MarkRewrite()
	})
	if err != nil {
		return storageErr(err)
	}
	w.mu.Lock()
	w.crypt.rec = &nrec
	w.mu.Unlock()
	// The old wrapping must not stay in a free page.
	if err := w.store.Rewrite(ctx); err != nil {
		return storageErr(err)
	}
	return nil
}

// EncryptResult is encryptwallet's reply.
const EncryptResult = "wallet encrypted; The keypool has been flushed and a new HD seed was generated. You need to make a new backup with the backupwallet RPC."

// Encrypt encrypts the wallet with passphrase (Core's encryptwallet). Every
// private key is sealed in one transaction, so a crash leaves the wallet
// wholly plain or wholly encrypted; the database is then rewritten so that
// no plain copy stays in its free pages or log. As Core, a wallet that is
// not blank then gets new active descriptors from a new seed, and the
// wallet ends locked.
func (w *Wallet) Encrypt(ctx context.Context, passphrase string) error {
	if !w.PrivateKeysEnabled() {
		return walletErr(ErrEncryptionFailed, "Error: wallet does not contain private keys, nothing to encrypt.")
	}
	if w.IsEncrypted() {
		return walletErr(ErrWrongEncState, "Error: running with an encrypted wallet, but encryptwallet was called.")
	}
	if passphrase == "" {
		return walletErr(ErrInvalidParameter, "passphrase cannot be empty")
	}
	// Encryption and passphrase changes of nodes serving the wallet
	// together run one at a time.
	release, err := w.exclusive(ctx)
	if err != nil {
		return err
	}
	defer release()
	w.importMu.Lock()
	defer w.importMu.Unlock()
	if w.isClosed() {
		return walletErr(ErrNotFound, "Requested wallet does not exist or is not loaded")
	}
	if w.IsEncrypted() {
		return walletErr(ErrWrongEncState, "Error: running with an encrypted wallet, but encryptwallet was called.")
	}
	failed := func(err error) error {
		return &Error{Kind: ErrEncryptionFailed, Err: err, Description: "Error: Failed to encrypt the wallet."}
	}
	master, rec, err := newMasterKey(passphrase)
	if err != nil {
		return failed(err)
	}
	aead, err := newGCM(master)
	if err != nil {
		wipe(master)
		return failed(err)
	}
	// Empty the log first, so that after the sealing commit no frame of
	// it holds a page with a plain key; the rewrite marked in the
	// transaction then clears the database file, now or at the next open
	// if the process dies first.
	if err := w.store.Checkpoint(ctx); err != nil {
		wipe(master)
		return failed(err)
	}
	err = w.store.Update(ctx, func(tx StoreTx) error {
		if err := tx.MarkRewrite(); err != nil {
			return err
		}
		if mk, err := tx.MasterKey(); err != nil {
			return err
		} else if mk != nil {
			return errors.New("database already holds a master key")
		}
		plain, err := tx.Secrets()
		if err != nil {
			return err
		}
		defer func() {
			for _, s := range plain {
				wipe(s.Secret)
			}
		}()
		for i, s := range plain {
			sealed, err := sealSecret(aead, s)
			if err != nil {
				return err
			}
			if err := tx.PutSecret(sealed); err != nil {
				return err
			}
			if encryptHook != nil {
				encryptHook(i+1, len(plain))
			}
		}
		return tx.PutMasterKey(rec)
	})
	if err != nil {
		wipe(master)
		return failed(err)
	}
	if encryptCommitHook != nil {
		encryptCommitHook()
	}
	w.mu.Lock()
	w.crypt.rec = &rec
	w.crypt.master = master
	w.mu.Unlock()
	var setupErr error
	if w.flags&FlagBlankWallet == 0 {
		setupErr = w.setupDefaultDescriptorsLocked(ctx)
	}
	w.mu.Lock()
	w.lockNow()
	w.mu.Unlock()
	if err := w.store.Rewrite(ctx); err != nil {
		return failed(err)
	}
	if setupErr != nil {
		return failed(setupErr)
	}
	return nil
}

// wipe zeroes the private keys of the cached expansions and empties the
// cache.
func (c *expansionCache) wipe() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, outs := range c.m {
		for _, o := range outs {
			for _, k := range o.Keys {
				wipe(k.PrivKey)
			}
		}
	}
	c.m = nil
}

// newMasterKey makes a random master key and wraps it under passphrase.
func newMasterKey(passphrase string) ([]byte, MasterKeyRecord, error) {
	master := make([]byte, masterKeyLen)
	if _, err := rand.Read(master); err != nil {
		return nil, MasterKeyRecord{}, err
	}
	rec, err := wrapMasterKey(passphrase, master)
	if err != nil {
		wipe(master)
		return nil, MasterKeyRecord{}, err
	}
	return master, rec, nil
}

// lockAll takes the wallet's locks and locks it.
func (w *Wallet) lockAll() {
	w.importMu.Lock()
	defer w.importMu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lockNow()
}
