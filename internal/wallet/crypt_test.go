package wallet_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testvec"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// corpusKeys are the test keys of core_rpc/wallet.json.
type corpusKeys struct {
	Keys struct {
		WIF map[string]struct {
			PrivHex string `json:"priv_hex"`
			WIF     string `json:"wif"`
		} `json:"wif"`
		BIP32 map[string]struct {
			TPrv string `json:"tprv"`
		} `json:"bip32"`
	} `json:"keys"`
}

func loadKeys(t testing.TB) corpusKeys {
	var k corpusKeys
	testvec.Load(t, "core_rpc/wallet.json", &k)
	if len(k.Keys.WIF) < 20 || len(k.Keys.BIP32) < 2 {
		t.Fatalf("wallet.json has %d WIF and %d BIP32 keys", len(k.Keys.WIF), len(k.Keys.BIP32))
	}
	return k
}

func newManager(dir string) *wallet.Manager {
	return wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(dir, "regtest"),
		Net: &chaincfg.RegressionNetParams, Opener: walletdb.Opener{}, Keypool: 10})
}

func strp(s string) *string { return &s }

func importPrivate(t testing.TB, w *wallet.Wallet, descs ...string) {
	t.Helper()
	elems := make([]wallet.ImportElement, len(descs))
	for i, d := range descs {
		elems[i] = wallet.ImportElement{HasDesc: true, Desc: descriptor.AddChecksum(d), Timestamp: 1700000000}
	}
	res, err := w.ImportDescriptors(context.Background(), elems, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if !r.Success {
			t.Fatalf("import %s: %v", descs[i], r.Err)
		}
	}
}

func privateList(t testing.TB, w *wallet.Wallet) []string {
	t.Helper()
	list, err := w.ListDescriptors(true)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(list))
	for i, d := range list {
		out[i] = d.Desc
	}
	return out
}

func wantKind(t testing.TB, err error, kind wallet.ErrorKind, msg string) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("got %v, want %s", err, kind)
	}
	if msg != "" && err.Error() != msg {
		t.Fatalf("got message %q, want %q", err.Error(), msg)
	}
}

const (
	msgUnlock    = "Error: Please enter the wallet passphrase with walletpassphrase first."
	msgIncorrect = "Error: The wallet passphrase entered was incorrect."
)

// TestEncryptedWalletLifecycle creates a wallet with a passphrase and goes
// through wrong and right passphrases, locking, a passphrase change and a
// reload.
func TestEncryptedWalletLifecycle(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := newManager(dir)
	defer m.Close()
	w, _, err := m.Create(ctx, "enc", wallet.CreateOptions{Passphrase: strp("correct horse")})
	if err != nil {
		t.Fatal(err)
	}
	if !w.IsEncrypted() || !w.IsLocked() {
		t.Fatalf("new wallet encrypted %v locked %v, want both", w.IsEncrypted(), w.IsLocked())
	}
	if until, enc := w.UnlockedUntil(); !enc || until != 0 {
		t.Fatalf("unlocked_until %d (encrypted %v), want 0", until, enc)
	}
	pub, err := w.ListDescriptors(false)
	if err != nil || len(pub) != 8 {
		t.Fatalf("public listing of a locked wallet: %d descriptors, %v", len(pub), err)
	}
	_, err = w.ListDescriptors(true)
	wantKind(t, err, wallet.ErrUnlockNeeded, msgUnlock)
	_, err = w.ImportDescriptors(ctx, nil, nil)
	wantKind(t, err, wallet.ErrUnlockNeeded, msgUnlock)
	// Addresses of the default descriptors come from the derivation cache.
	if _, err := w.NewAddress(ctx, false, "", nil); err != nil {
		t.Fatalf("getnewaddress on a locked wallet: %v", err)
	}

	wantKind(t, w.Unlock(ctx, "wrong horse", 60), wallet.ErrPassphraseIncorrect, msgIncorrect)
	wantKind(t, w.Unlock(ctx, "correct horse", -1), wallet.ErrInvalidParameter, "Timeout cannot be negative.")
	wantKind(t, w.Unlock(ctx, "", 60), wallet.ErrInvalidParameter, "passphrase cannot be empty")
	if !w.IsLocked() {
		t.Fatal("failed unlocks left the wallet unlocked")
	}
	before := time.Now().Unix()
	if err := w.Unlock(ctx, "correct horse", 200000000); err != nil {
		t.Fatal(err)
	}
	if until, _ := w.UnlockedUntil(); until < before+wallet.MaxUnlockSeconds || until > time.Now().Unix()+wallet.MaxUnlockSeconds {
		t.Fatalf("unlocked_until %d, want now + %d (clamped)", until, wallet.MaxUnlockSeconds)
	}
	priv := privateList(t, w)
	if len(priv) != 8 || !strings.Contains(priv[0], "tprv") {
		t.Fatalf("private listing: %v", priv)
	}
	keys := loadKeys(t)
	importPrivate(t, w, "pkh("+keys.Keys.WIF["k01"].WIF+")")
	priv = privateList(t, w)

	if err := w.Lock(); err != nil {
		t.Fatal(err)
	}
	_, err = w.ListDescriptors(true)
	wantKind(t, err, wallet.ErrUnlockNeeded, msgUnlock)

	wantKind(t, w.ChangePassphrase(ctx, "wrong horse", "battery staple"), wallet.ErrPassphraseIncorrect, msgIncorrect)
	wantKind(t, w.ChangePassphrase(ctx, "correct horse", ""), wallet.ErrInvalidParameter, "passphrase cannot be empty")
	if err := w.ChangePassphrase(ctx, "correct horse", "battery staple"); err != nil {
		t.Fatal(err)
	}
	if !w.IsLocked() {
		t.Fatal("passphrase change unlocked the wallet")
	}
	wantKind(t, w.Unlock(ctx, "correct horse", 60), wallet.ErrPassphraseIncorrect, msgIncorrect)

	// Reload: the wallet comes back locked and opens with the new
	// passphrase to the same private descriptors.
	if _, err := m.Unload(ctx, "enc", nil); err != nil {
		t.Fatal(err)
	}
	w, _, err = m.Load(ctx, "enc", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !w.IsLocked() {
		t.Fatal("reloaded wallet is not locked")
	}
	if err := w.Unlock(ctx, "battery staple", 60); err != nil {
		t.Fatal(err)
	}
	if got := privateList(t, w); strings.Join(got, "\n") != strings.Join(priv, "\n") {
		t.Fatalf("after reload:\n%v\nwant\n%v", got, priv)
	}
}

// TestPassphraseCallsOnPlainWallet checks Core's wrong-state errors.
func TestPassphraseCallsOnPlainWallet(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	defer m.Close()
	w, _, err := m.Create(ctx, "plain", wallet.CreateOptions{Blank: true})
	if err != nil {
		t.Fatal(err)
	}
	wantKind(t, w.Unlock(ctx, "x", 1), wallet.ErrWrongEncState, "Error: running with an unencrypted wallet, but walletpassphrase was called.")
	wantKind(t, w.Lock(), wallet.ErrWrongEncState, "Error: running with an unencrypted wallet, but walletlock was called.")
	wantKind(t, w.ChangePassphrase(ctx, "x", "y"), wallet.ErrWrongEncState, "Error: running with an unencrypted wallet, but walletpassphrasechange was called.")
	if _, enc := w.UnlockedUntil(); enc {
		t.Fatal("plain wallet reports unlocked_until")
	}
	wantKind(t, w.Encrypt(ctx, ""), wallet.ErrInvalidParameter, "passphrase cannot be empty")
	if err := w.Encrypt(ctx, "pw"); err != nil {
		t.Fatal(err)
	}
	wantKind(t, w.Encrypt(ctx, "pw"), wallet.ErrWrongEncState, "Error: running with an encrypted wallet, but encryptwallet was called.")
	if !w.IsLocked() {
		t.Fatal("encryptwallet left the wallet unlocked")
	}

	wo, _, err := m.Create(ctx, "watch", wallet.CreateOptions{DisablePrivateKeys: true, Blank: true})
	if err != nil {
		t.Fatal(err)
	}
	wantKind(t, wo.Encrypt(ctx, "pw"), wallet.ErrEncryptionFailed, "Error: wallet does not contain private keys, nothing to encrypt.")
	_, _, err = m.Create(ctx, "watch2", wallet.CreateOptions{DisablePrivateKeys: true, Passphrase: strp("pw")})
	wantKind(t, err, wallet.ErrWallet, "Passphrase provided but private keys are disabled. A passphrase is only used to encrypt private keys, so cannot be used for wallets with private keys disabled.")
}

// TestRelockAfterTimeout unlocks for one second and waits for the wallet to
// lock itself.
func TestRelockAfterTimeout(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	defer m.Close()
	w, _, err := m.Create(ctx, "enc", wallet.CreateOptions{Blank: true, Passphrase: strp("pw")})
	if err != nil {
		t.Fatal(err)
	}
	// A longer unlock replaced by a short one: the short one counts.
	if err := w.Unlock(ctx, "pw", 3600); err != nil {
		t.Fatal(err)
	}
	if err := w.Unlock(ctx, "pw", 1); err != nil {
		t.Fatal(err)
	}
	if w.IsLocked() {
		t.Fatal("locked right after unlocking")
	}
	if until, _ := w.UnlockedUntil(); until == 0 || until > time.Now().Unix()+1 {
		t.Fatalf("unlocked_until %d, want now+1", until)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !w.IsLocked() {
		if time.Now().After(deadline) {
			t.Fatal("wallet did not relock within 10 s of a 1 s timeout")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if until, _ := w.UnlockedUntil(); until != 0 {
		t.Fatalf("unlocked_until %d after relock, want 0", until)
	}
	_, err = w.ImportDescriptors(ctx, nil, nil)
	wantKind(t, err, wallet.ErrUnlockNeeded, msgUnlock)
}

// secretNeedles returns what must never appear in a wallet file in the
// clear: the WIF strings and raw private keys, the tprv strings and their
// raw private keys, and the marker "tprv" itself.
func secretNeedles(t testing.TB, keys corpusKeys, wifs, tprvs []string) [][]byte {
	needles := [][]byte{[]byte("tprv")}
	for _, id := range wifs {
		k := keys.Keys.WIF[id]
		raw, err := hexBytes(k.PrivHex)
		if err != nil {
			t.Fatal(err)
		}
		needles = append(needles, []byte(k.WIF), raw)
	}
	for _, id := range tprvs {
		s := keys.Keys.BIP32[id].TPrv
		ext, err := hdkeychain.NewKeyFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		priv, err := ext.ECPrivKey()
		if err != nil {
			t.Fatal(err)
		}
		needles = append(needles, []byte(s), priv.Serialize())
	}
	return needles
}

func hexBytes(s string) ([]byte, error) {
	b := make([]byte, len(s)/2)
	_, err := fmt.Sscanf(s, "%x", &b)
	return b, err
}

// findSecrets returns which needles occur in the files.
func findSecrets(t testing.TB, files []string, needles [][]byte) []string {
	var found []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range needles {
			if bytes.Contains(data, n) {
				found = append(found, fmt.Sprintf("%s holds %q", filepath.Base(f), shorten(n)))
			}
		}
	}
	return found
}

func shorten(b []byte) string {
	if len(b) > 12 {
		return fmt.Sprintf("%x…", b[:6])
	}
	return string(b)
}

// TestNoPlaintextKeysOnDisk greps the wallet file, its log and a backup for
// private keys, before encryption (where they are, so the grep works) and
// after (where they must not be), with a key imported while unlocked.
func TestNoPlaintextKeysOnDisk(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := newManager(dir)
	defer m.Close()
	keys := loadKeys(t)
	w, _, err := m.Create(ctx, "w", wallet.CreateOptions{Blank: true})
	if err != nil {
		t.Fatal(err)
	}
	importPrivate(t, w, "pkh("+keys.Keys.WIF["k01"].WIF+")", "tr("+keys.Keys.WIF["k02"].WIF+")",
		"wpkh("+keys.Keys.BIP32["t01"].TPrv+"/84h/1h/0h/0/*)")
	dbFile := filepath.Join(dir, "regtest", "wallets", "w", wallet.DatabaseFile)
	files := []string{dbFile, dbFile + "-wal"}
	before := secretNeedles(t, keys, []string{"k01", "k02"}, []string{"t01"})
	if found := findSecrets(t, files, before); len(found) < 3 {
		t.Fatalf("plain wallet: expected its keys in the files, found only %v", found)
	}

	if err := w.Encrypt(ctx, "pw"); err != nil {
		t.Fatal(err)
	}
	if err := w.Unlock(ctx, "pw", 60); err != nil {
		t.Fatal(err)
	}
	importPrivate(t, w, "sh(wpkh("+keys.Keys.WIF["k03"].WIF+"))", "tr("+keys.Keys.BIP32["t02"].TPrv+"/86h/1h/0h/0/*)")
	backup := filepath.Join(dir, "backup.sqlite")
	if err := w.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	all := secretNeedles(t, keys, []string{"k01", "k02", "k03"}, []string{"t01", "t02"})
	if found := findSecrets(t, append(files, backup), all); len(found) > 0 {
		t.Fatalf("private keys in the clear while open: %v", found)
	}
	if _, err := m.Unload(ctx, "w", nil); err != nil {
		t.Fatal(err)
	}
	if found := findSecrets(t, append(files, backup), all); len(found) > 0 {
		t.Fatalf("private keys in the clear after close: %v", found)
	}
	// The backup is a working encrypted wallet.
	r, _, err := m.Restore(ctx, "restored", backup, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.IsLocked() {
		t.Fatal("restored backup is not locked")
	}
	if err := r.Unlock(ctx, "pw", 60); err != nil {
		t.Fatal(err)
	}
	if got := privateList(t, r); len(got) != 5 {
		t.Fatalf("restored backup lists %d private descriptors, want 5", len(got))
	}
}

const childEnv = "DESCWALLET_ENCRYPT_CHILD"

// TestEncryptKill9 runs encryptwallet in a child process and kills it with
// SIGKILL at several points: before the first record is sealed, in the
// middle of the transaction, after the last record, and after Encrypt has
// returned. The wallet must always open, hold the same keys, and be
// encrypted (opening with the passphrase) exactly when the transaction
// committed.
func TestEncryptKill9(t *testing.T) {
	if dir := os.Getenv(childEnv); dir != "" {
		encryptChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("-short: spawns child processes")
	}
	keys := loadKeys(t)
	var descs []string
	for i := 1; i <= 20; i++ {
		descs = append(descs, "pkh("+keys.Keys.WIF[fmt.Sprintf("k%02d", i)].WIF+")")
	}
	descs = append(descs, "wpkh("+keys.Keys.BIP32["t01"].TPrv+"/84h/1h/0h/0/*)")
	// Every plain form of the keys: WIF and tprv strings, raw bytes.
	needles := map[string][]byte{"tprv": []byte(keys.Keys.BIP32["t01"].TPrv)}
	for i := 1; i <= 20; i++ {
		k := keys.Keys.WIF[fmt.Sprintf("k%02d", i)]
		raw, err := hex.DecodeString(k.PrivHex)
		if err != nil || len(raw) != 32 {
			t.Fatalf("k%02d: priv_hex %q", i, k.PrivHex)
		}
		needles[fmt.Sprintf("wif k%02d", i)] = []byte(k.WIF)
		needles[fmt.Sprintf("raw k%02d", i)] = raw
	}
	points := []struct {
		name string
		hit  func(line string) bool
	}{
		{"first-record", func(l string) bool { d, _, ok := sealed(l); return ok && d == 1 }},
		{"mid-transaction", func(l string) bool { d, n, ok := sealed(l); return ok && d == n/2 }},
		{"last-record", func(l string) bool { d, n, ok := sealed(l); return ok && d == n }},
		{"committed", func(l string) bool { return l == "committed" }},
		{"done", func(l string) bool { return l == "done" }},
	}
	for _, pt := range points {
		killAt := pt.name
		t.Run(killAt, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			m := newManager(dir)
			w, _, err := m.Create(ctx, "w", wallet.CreateOptions{Blank: true})
			if err != nil {
				t.Fatal(err)
			}
			importPrivate(t, w, descs...)
			want := privateList(t, w)
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			plainIn := plainFiles(t, dir, needles)
			for name := range needles {
				if len(plainIn[name]) == 0 {
					t.Fatalf("the plain wallet holds no %s: the search cannot be trusted", name)
				}
			}

			cmd := exec.Command(os.Args[0], "-test.run=^TestEncryptKill9$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+dir)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			var last string
			killed := false
			for sc.Scan() {
				last = sc.Text()
				if pt.hit(last) {
					cmd.Process.Kill()
					killed = true
					break
				}
			}
			cmd.Wait()
			if !killed {
				t.Fatalf("child ended before %q (last line %q)", killAt, last)
			}

			m = newManager(dir)
			defer m.Close()
			if killAt == "committed" {
				// The node's start-up recovery finishes the rewrite
				// even of a wallet it does not load.
				if f := m.Recover(ctx); len(f) != 0 {
					t.Fatalf("Recover: %v", f)
				}
				if found := plainFiles(t, dir, needles); len(found) > 0 {
					t.Fatalf("plain keys in the wallet's files after Recover: %v", found)
				}
			}
			w, _, err = m.Load(ctx, "w", nil)
			if err != nil {
				t.Fatalf("wallet does not open after kill at %q: %v", killAt, err)
			}
			committed := killAt == "done" || killAt == "committed"
			if w.IsEncrypted() != committed {
				t.Fatalf("killed at %q: encrypted %v, want %v", killAt, w.IsEncrypted(), committed)
			}
			if committed {
				// Once the wallet has opened again, no file holds a
				// key in plain form, whatever point the kill hit.
				if found := plainFiles(t, dir, needles); len(found) > 0 {
					t.Fatalf("killed at %q: plain keys in the wallet's files after the reopen: %v", killAt, found)
				}
				wantKind(t, w.Unlock(ctx, "wrong", 60), wallet.ErrPassphraseIncorrect, msgIncorrect)
				if err := w.Unlock(ctx, "pw", 60); err != nil {
					t.Fatal(err)
				}
			} else {
				wantKind(t, w.Unlock(ctx, "pw", 60), wallet.ErrWrongEncState, "")
			}
			if got := privateList(t, w); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("killed at %q: keys changed:\n%v\nwant\n%v", killAt, got, want)
			}
		})
	}
}

// plainFiles returns, for each needle found, the files under root that
// hold it.
func plainFiles(t *testing.T, root string, needles map[string][]byte) map[string][]string {
	t.Helper()
	found := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for name, n := range needles {
			if bytes.Contains(data, n) {
				found[name] = append(found[name], filepath.Base(path))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// sealed parses the child's "sealing d/n" line.
func sealed(line string) (done, total int, ok bool) {
	_, err := fmt.Sscanf(line, "sealing %d/%d", &done, &total)
	return done, total, err == nil && total > 0
}

// encryptChild is the child side of TestEncryptKill9: it encrypts the
// wallet "w" slowly, reporting each sealed record, and waits to be killed.
func encryptChild(dir string) {
	m := newManager(dir)
	w, _, err := m.Load(context.Background(), "w", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	wallet.SetEncryptHook(func(done, total int) {
		fmt.Printf("sealing %d/%d\n", done, total)
		time.Sleep(20 * time.Millisecond)
	})
	wallet.SetEncryptCommitHook(func() {
		fmt.Println("committed")
		// Long enough for the parent to kill on that line.
		time.Sleep(500 * time.Millisecond)
	})
	if err := w.Encrypt(context.Background(), "pw"); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Println("done")
	time.Sleep(time.Minute)
	os.Exit(3)
}
