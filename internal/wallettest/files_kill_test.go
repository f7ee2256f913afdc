package wallettest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil/v2"
	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testenv"
)

// killRounds is how many kills each test below makes.
const killRounds = 5

// killSeed picks the random kill points; a failure prints it.
func killSeed(t *testing.T) *rand.Rand {
	seed := time.Now().UnixNano()
	t.Logf("kill points from seed %d", seed)
	return rand.New(rand.NewSource(seed))
}

// callAndKill sends one call, kills the node after delay, and reports
// whether the call returned success before the kill.
func callAndKill(d *testenv.Daemon, c *testenv.Client, delay time.Duration, method string, params ...any) (acked bool) {
	var (
		mu sync.Mutex
		ok bool
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := c.Call(method, params...); err == nil {
			mu.Lock()
			ok = true
			mu.Unlock()
		}
	}()
	time.Sleep(delay)
	d.Kill()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return ok
}

// timeCall measures one call.
func timeCall(t *testing.T, c *testenv.Client, method string, params ...any) time.Duration {
	t.Helper()
	start := time.Now()
	if _, err := c.Call(method, params...); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return time.Since(start)
}

func walletClient(d *testenv.Daemon, name string) *testenv.Client {
	return &testenv.Client{URL: d.URL + "wallet/" + name, User: "u", Pass: "p"}
}

func listWalletDir(t *testing.T, d *testenv.Daemon) map[string]bool {
	t.Helper()
	var res struct {
		Wallets []struct {
			Name string `json:"name"`
		} `json:"wallets"`
	}
	if err := d.CallResult(&res, "listwalletdir"); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, w := range res.Wallets {
		out[w.Name] = true
	}
	return out
}

type listedDescriptor struct {
	Desc   string `json:"desc"`
	Active bool   `json:"active"`
}

func listDescriptors(t *testing.T, c *testenv.Client, private bool) []listedDescriptor {
	t.Helper()
	var res struct {
		Descriptors []listedDescriptor `json:"descriptors"`
	}
	if err := c.CallResult(&res, "listdescriptors", private); err != nil {
		t.Fatal(err)
	}
	return res.Descriptors
}

// TestCreateWalletSurvivesKill kills the node at random points of
// createwallet (with and without a passphrase) and restarts it: a wallet
// whose creation was acknowledged is there with its eight default
// descriptors; one whose creation was not is either the same whole wallet
// or absent, with its name free for a new createwallet.
func TestCreateWalletSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd many times")
	}
	t.Parallel()
	rng := killSeed(t)
	dataDir := t.TempDir()
	opts := &testenv.DaemonOptions{DataDir: dataDir, Args: []string{"-keypool=10"}}
	d := testenv.StartDaemon(t, opts)
	took := timeCall(t, d.Client, "createwallet", "probe", false, false, "pw")
	t.Logf("createwallet with a passphrase takes %v", took)
	acked := map[string]bool{}
	for round := 0; round < killRounds; round++ {
		name := fmt.Sprintf("c%d", round)
		pass := ""
		if round%2 == 1 {
			pass = "pw"
		}
		delay := time.Duration(rng.Int63n(int64(took) * 3 / 2))
		ok := callAndKill(d, d.Client, delay, "createwallet", name, false, false, pass, false, true, true)
		acked[name] = ok
		t.Logf("round %d: killed after %v, acknowledged %v", round, delay, ok)
		d = testenv.StartDaemon(t, opts)
		loadedNow := map[string]bool{}
		var loaded []string
		if err := d.CallResult(&loaded, "listwallets"); err != nil {
			t.Fatal(err)
		}
		for _, n := range loaded {
			loadedNow[n] = true
		}
		dir := listWalletDir(t, d)
		for n, ok := range acked {
			if !dir[n] {
				if ok {
					t.Fatalf("round %d: wallet %s was acknowledged but is not in listwalletdir", round, n)
				}
				// Not made: the name is free and nothing of it is
				// left.
				if _, err := os.Stat(filepath.Join(d.NetDir, "wallets", n)); !os.IsNotExist(err) {
					t.Fatalf("round %d: unacknowledged wallet %s left its folder: %v", round, n, err)
				}
				continue
			}
			if !loadedNow[n] {
				if _, err := d.Call("loadwallet", n); err != nil {
					t.Fatalf("round %d: wallet %s (acknowledged %v) is listed but does not load: %v", round, n, ok, err)
				}
			}
			if got := listDescriptors(t, walletClient(d, n), false); len(got) != 8 {
				t.Fatalf("round %d: wallet %s (acknowledged %v) has %d descriptors, want 8", round, n, ok, len(got))
			}
		}
		for n, ok := range acked {
			if !ok && !dir[n] {
				// The name of a creation that did not happen works.
				if _, err := d.Call("createwallet", n); err != nil {
					t.Fatalf("round %d: createwallet %s after the kill: %v", round, n, err)
				}
				acked[n] = true
			}
		}
	}
}

// secretNeedles returns the ways a plain private key of the listed private
// descriptors can sit in a file: each xprv/tprv and WIF string, and the raw
// 32 bytes of each of their keys.
func secretNeedles(t *testing.T, descs []listedDescriptor) map[string][]byte {
	t.Helper()
	needles := map[string][]byte{}
	xprv := regexp.MustCompile(`[xt]prv[1-9A-HJ-NP-Za-km-z]{100,}`)
	wif := regexp.MustCompile(`\(([1-9A-HJ-NP-Za-km-z]{51,52})\)`)
	for _, ld := range descs {
		for _, s := range xprv.FindAllString(ld.Desc, -1) {
			needles["xprv "+s[:12]] = []byte(s)
			k, err := hdkeychain.NewKeyFromString(s)
			if err != nil {
				t.Fatal(err)
			}
			priv, err := k.ECPrivKey()
			if err != nil {
				t.Fatal(err)
			}
			needles["raw of "+s[:12]] = priv.Serialize()
		}
		for _, m := range wif.FindAllStringSubmatch(ld.Desc, -1) {
			w, err := btcutil.DecodeWIF(m[1])
			if err != nil {
				continue
			}
			needles["wif "+m[1][:8]] = []byte(m[1])
			needles["raw of "+m[1][:8]] = w.PrivKey.Serialize()
		}
	}
	return needles
}

// filesHolding returns, for each needle found, the data dir files that
// hold it.
func filesHolding(t *testing.T, root string, needles map[string][]byte) map[string][]string {
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
				rel, _ := filepath.Rel(root, path)
				found[name] = append(found[name], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestEncryptWalletSurvivesKill kills the node at random points of
// encryptwallet on a wallet holding WIF and tprv keys and restarts it:
// an acknowledged encryption is there; in every case the wallet holds its
// keys; and once the wallet is encrypted no file of the data dir holds any
// of its keys in plain form (as a WIF, a tprv or raw bytes), which the
// search first proves it finds in the plain wallet.
func TestEncryptWalletSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd many times")
	}
	t.Parallel()
	rng := killSeed(t)
	var took time.Duration
	for round := 0; round < killRounds; round++ {
		dataDir := t.TempDir()
		opts := &testenv.DaemonOptions{DataDir: dataDir, Args: []string{"-keypool=10"}}
		d := testenv.StartDaemon(t, opts)
		if _, err := d.Call("createwallet", "e", false, false, "", false, true, true); err != nil {
			t.Fatal(err)
		}
		w := walletClient(d, "e")
		var reqs []map[string]any
		for i := 0; i < 6; i++ {
			k := testenv.NewKey(fmt.Sprintf("encrypt-kill-%d-%d", round, i))
			reqs = append(reqs, map[string]any{"desc": descriptor.AddChecksum("wpkh(" + k.WIF + ")"), "timestamp": "now"})
		}
		if _, err := w.Call("importdescriptors", reqs); err != nil {
			t.Fatal(err)
		}
		before := listDescriptors(t, w, true)
		needles := secretNeedles(t, before)
		found := filesHolding(t, dataDir, needles)
		for name := range needles {
			if len(found[name]) == 0 {
				t.Fatalf("the plain wallet holds no %s: the search cannot be trusted", name)
			}
		}
		if round == 0 {
			// Calibrate on a wallet that is not killed.
			if _, err := d.Call("createwallet", "probe"); err != nil {
				t.Fatal(err)
			}
			took = timeCall(t, walletClient(d, "probe"), "encryptwallet", "pw")
			t.Logf("encryptwallet takes %v", took)
		}
		// From early in the key derivation to well after the reply:
		// the time varies a lot on a busy machine.
		delay := time.Duration(float64(took) * (0.2 + 1.8*rng.Float64()))
		ok := callAndKill(d, w, delay, "encryptwallet", "pw")
		d = testenv.StartDaemon(t, opts)
		w = walletClient(d, "e")
		var info struct {
			UnlockedUntil *int64 `json:"unlocked_until"`
		}
		if err := w.CallResult(&info, "getwalletinfo"); err != nil {
			t.Fatalf("round %d: wallet not loaded after the restart: %v\n%s", round, err, d.Output())
		}
		encrypted := info.UnlockedUntil != nil
		t.Logf("round %d: killed after %v, acknowledged %v, encrypted %v", round, delay, ok, encrypted)
		if ok && !encrypted {
			t.Fatalf("round %d: encryptwallet was acknowledged but the wallet is not encrypted", round)
		}
		if encrypted {
			if found := filesHolding(t, dataDir, needles); len(found) > 0 {
				t.Fatalf("round %d: plain keys in the data dir of the encrypted wallet: %v", round, found)
			}
			if _, err := w.Call("walletpassphrase", "pw", 60); err != nil {
				t.Fatal(err)
			}
		}
		after := map[string]bool{}
		for _, ld := range listDescriptors(t, w, true) {
			after[ld.Desc] = true
		}
		for _, ld := range before {
			if !after[ld.Desc] {
				t.Fatalf("round %d: descriptor lost: %.20s...", round, ld.Desc)
			}
		}
	}
}

// TestBackupWalletSurvivesKill kills the node at random points of
// backupwallet (of an encrypted wallet, into the data dir) and restarts
// it: every acknowledged backup is a whole wallet with mode 0600, the
// interrupted one is whole or absent, and no file of the data dir holds a
// plain key.
func TestBackupWalletSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd many times")
	}
	t.Parallel()
	rng := killSeed(t)
	dataDir := t.TempDir()
	backups := filepath.Join(dataDir, "backups")
	if err := os.Mkdir(backups, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := &testenv.DaemonOptions{DataDir: dataDir, Args: []string{"-keypool=200"}}
	d := testenv.StartDaemon(t, opts)
	if _, err := d.Call("createwallet", "b", false, false, "pw", false, true, true); err != nil {
		t.Fatal(err)
	}
	w := walletClient(d, "b")
	if _, err := w.Call("walletpassphrase", "pw", 600); err != nil {
		t.Fatal(err)
	}
	needles := secretNeedles(t, listDescriptors(t, w, true))
	if len(needles) == 0 {
		t.Fatal("no keys to search for")
	}
	want := listDescriptors(t, w, false)
	took := timeCall(t, w, "backupwallet", filepath.Join(backups, "probe.dat"))
	t.Logf("backupwallet takes %v", took)
	acked := map[string]bool{"probe.dat": true}
	for round := 0; round < killRounds; round++ {
		name := fmt.Sprintf("b%d.dat", round)
		delay := time.Duration(rng.Int63n(int64(took) * 3 / 2))
		acked[name] = callAndKill(d, w, delay, "backupwallet", filepath.Join(backups, name))
		t.Logf("round %d: killed after %v, acknowledged %v", round, delay, acked[name])
		d = testenv.StartDaemon(t, opts)
		w = walletClient(d, "b")
		if found := filesHolding(t, dataDir, needles); len(found) > 0 {
			t.Fatalf("round %d: plain keys in the data dir: %v", round, found)
		}
	}
	for name, ok := range acked {
		path := filepath.Join(backups, name)
		st, err := os.Stat(path)
		if err != nil {
			if ok {
				t.Fatalf("acknowledged backup %s is missing: %v", name, err)
			}
			continue
		}
		if st.Mode().Perm() != 0o600 {
			t.Fatalf("backup %s has mode %v, want 0600", name, st.Mode().Perm())
		}
		restored := "r-" + strings.TrimSuffix(name, ".dat")
		if _, err := d.Call("restorewallet", restored, path); err != nil {
			t.Fatalf("backup %s (acknowledged %v) does not restore: %v", name, ok, err)
		}
		got := listDescriptors(t, walletClient(d, restored), false)
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if !bytes.Equal(gj, wj) {
			t.Fatalf("backup %s holds other descriptors:\n%s\nwant\n%s", name, gj, wj)
		}
	}
}
