package methods

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcutil/v2"
	"github.com/jackc/pgx/v5"
)

// mustCall sends a call and fails the test on an error reply.
func (n *walletNode) mustCall(t *testing.T, wallet, method string, params ...any) json.RawMessage {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	raw, _ := json.Marshal(params)
	path := "/"
	if wallet != "" {
		path = "/wallet/" + wallet
	}
	r := n.call(t, path, method, raw)
	if r.Error != nil {
		t.Fatalf("%s %s: error %d %q", method, raw, r.Error.Code, r.Error.Message)
	}
	return r.Result
}

// walletView is what a restored wallet must show as its original did.
func walletView(t *testing.T, n *walletNode, w, addr string) map[string]string {
	t.Helper()
	view := map[string]string{}
	info := map[string]json.RawMessage{}
	json.Unmarshal(n.mustCall(t, w, "getwalletinfo"), &info)
	for _, k := range []string{"format", "keypoolsize", "keypoolsize_hd_internal", "private_keys_enabled",
		"avoid_reuse", "unlocked_until", "txcount"} {
		view["info."+k] = string(info[k])
	}
	view["listdescriptors"] = string(n.mustCall(t, w, "listdescriptors"))
	view["listlabels"] = string(n.mustCall(t, w, "listlabels"))
	view["getaddressinfo"] = string(n.mustCall(t, w, "getaddressinfo", addr))
	view["getaddressesbylabel"] = string(n.mustCall(t, w, "getaddressesbylabel", "pay"))
	return view
}

// TestBackupAcrossStores backs a wallet up from SQLite, restores it into
// PostgreSQL, backs it up from there and restores that into SQLite: each
// copy shows the same descriptors, labels, address data, settings and
// next addresses, and an encrypted wallet's keys still unlock with its
// passphrase.
func TestBackupAcrossStores(t *testing.T) {
	dir := t.TempDir()
	a := newWalletNodeOn(t, filepath.Join(dir, "a"), 20, storeOpener(t, filepath.Join(dir, "a"), "sqlite"))
	defer a.mgr.Close()
	b := newWalletNodeOn(t, filepath.Join(dir, "b"), 20, storeOpener(t, filepath.Join(dir, "b"), "postgres"))
	defer b.mgr.Close()
	c := newWalletNodeOn(t, filepath.Join(dir, "c"), 20, storeOpener(t, filepath.Join(dir, "c"), "sqlite"))
	defer c.mgr.Close()

	for _, enc := range []bool{false, true} {
		name := "plain"
		var args []any
		if enc {
			name = "enc"
			args = []any{name, false, false, "secret pass", true}
		} else {
			args = []any{name, false, false, "", true}
		}
		a.mustCall(t, "", "createwallet", args...)
		var addr string
		json.Unmarshal(a.mustCall(t, name, "getnewaddress", "pay"), &addr)
		var other string
		json.Unmarshal(a.mustCall(t, name, "getnewaddress"), &other)
		a.mustCall(t, name, "setlabel", other, "second")
		a.mustCall(t, name, "getrawchangeaddress")
		want := walletView(t, a, name, addr)

		file1 := filepath.Join(dir, name+"-a.dat")
		a.mustCall(t, name, "backupwallet", file1)
		b.mustCall(t, "", "restorewallet", name, file1)
		file2 := filepath.Join(dir, name+"-b.dat")
		b.mustCall(t, name, "backupwallet", file2)
		if st, err := os.Stat(file2); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("backup from PostgreSQL: %v %v", st, err)
		}
		c.mustCall(t, "", "restorewallet", name, file2)

		var nextA string
		json.Unmarshal(a.mustCall(t, name, "getnewaddress"), &nextA)
		for _, n := range []struct {
			label string
			node  *walletNode
		}{{"postgres", b}, {"sqlite from postgres", c}} {
			got := walletView(t, n.node, name, addr)
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s %s: %s\n got %s\nwant %s", name, n.label, k, got[k], v)
				}
			}
			var next string
			json.Unmarshal(n.node.mustCall(t, name, "getnewaddress"), &next)
			if next != nextA {
				t.Errorf("%s %s: next address %s, want %s", name, n.label, next, nextA)
			}
			if enc {
				n.node.mustCall(t, name, "walletpassphrase", "secret pass", 60)
				priv := n.node.mustCall(t, name, "listdescriptors", true)
				a.mustCall(t, name, "walletpassphrase", "secret pass", 60)
				if wantPriv := a.mustCall(t, name, "listdescriptors", true); string(priv) != string(wantPriv) {
					t.Errorf("%s: private descriptors differ after the restore", n.label)
				}
				n.node.mustCall(t, name, "walletlock")
				a.mustCall(t, name, "walletlock")
			}
		}
	}
	if names := string(b.mustCall(t, "", "listwalletdir")); !strings.Contains(names, `"enc"`) || !strings.Contains(names, `"plain"`) {
		t.Errorf("listwalletdir on PostgreSQL: %s", names)
	}

	// A file that is not a wallet is refused alike by both stores, and
	// leaves no wallet behind.
	junk := filepath.Join(dir, "junk.dat")
	os.WriteFile(junk, []byte("not a wallet"), 0o600)
	ra := a.call(t, "/", "restorewallet", json.RawMessage(`["j", "`+junk+`"]`))
	rb := b.call(t, "/", "restorewallet", json.RawMessage(`["j", "`+junk+`"]`))
	if ra.Error == nil || rb.Error == nil || ra.Error.Code != rb.Error.Code ||
		strings.ReplaceAll(ra.Error.Message, filepath.Join(dir, "a"), "") != strings.ReplaceAll(rb.Error.Message, filepath.Join(dir, "b"), "") {
		t.Errorf("junk restore: sqlite %+v, postgres %+v", ra.Error, rb.Error)
	}
	if names := string(b.mustCall(t, "", "listwalletdir")); strings.Contains(names, `"j"`) {
		t.Errorf("junk restore left a wallet: %s", names)
	}
}

// TestNoPlainKeysInPostgres imports a known private key into an encrypted
// wallet on PostgreSQL and searches every row of every table for it, as
// WIF, hex and raw bytes.
func TestNoPlainKeysInPostgres(t *testing.T) {
	dir := t.TempDir()
	n := newWalletNodeOn(t, dir, 5, storeOpener(t, dir, "postgres"))
	defer n.mgr.Close()
	const wif = "cP1nmmpqr78VzTVBBZbB7st3tiCng19ZZBiHRWWVc6mojnjeqrCf"
	n.mustCall(t, "", "createwallet", "keys", false, false, "pass phrase", false)
	n.mustCall(t, "keys", "walletpassphrase", "pass phrase", 60)
	var info struct {
		Checksum string `json:"checksum"`
	}
	json.Unmarshal(n.mustCall(t, "", "getdescriptorinfo", "wpkh("+wif+")"), &info)
	res := n.mustCall(t, "keys", "importdescriptors", []any{map[string]any{"desc": "wpkh(" + wif + ")#" + info.Checksum, "timestamp": "now"}})
	if !strings.Contains(string(res), `"success":true`) {
		t.Fatalf("import: %s", res)
	}
	// The wallet's own HD seed (a default descriptor's xprv) must not be
	// stored plain either.
	var descs struct {
		Descriptors []struct {
			Desc string `json:"desc"`
		} `json:"descriptors"`
	}
	json.Unmarshal(n.mustCall(t, "keys", "listdescriptors", true), &descs)
	var needles []string
	for _, d := range descs.Descriptors {
		body := d.Desc
		if i := strings.Index(body, "prv"); i > 0 {
			end := strings.IndexAny(body[i:], "/)")
			needles = append(needles, body[i-1:i+end])
		}
	}
	key := wifKeyBytes(t, wif)
	needles = append(needles, wif, hex.EncodeToString(key))

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 10 {
		t.Fatalf("tables %v %v", tables, err)
	}
	scanned := 0
	for _, tbl := range tables {
		rows, err := conn.Query(ctx, "SELECT t::text FROM "+pgx.Identifier{tbl}.Sanitize()+" t")
		if err != nil {
			t.Fatal(err)
		}
		texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range texts {
			scanned++
			for _, nd := range needles {
				if strings.Contains(row, nd) {
					t.Errorf("table %s holds key material %.12s...", tbl, nd)
				}
			}
			if strings.Contains(row, `\x`) && strings.Contains(row, hex.EncodeToString(key)) {
				t.Errorf("table %s holds the raw private key", tbl)
			}
		}
	}
	if scanned < 10 || len(needles) < 3 {
		t.Fatalf("scanned %d rows for %d needles: the search proves nothing", scanned, len(needles))
	}
}

// wifKeyBytes returns the 32-byte private key of a WIF string.
func wifKeyBytes(t *testing.T, wif string) []byte {
	t.Helper()
	w, err := btcutil.DecodeWIF(wif)
	if err != nil {
		t.Fatal(err)
	}
	return w.PrivKey.Serialize()
}
