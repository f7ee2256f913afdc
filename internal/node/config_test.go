package node

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conf := "# comment\nrpcuser=fileuser\nrpcpassword=filepass\nrpcthreads=4\nregtest=1\n" +
		"rpcallowip=10.0.0.0/8\n[regtest]\nrpcport=20000\nwallet=w1\nmain.rpcport=1\n"
	if err := os.WriteFile(filepath.Join(dir, ConfigFileName), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig([]string{"-datadir=" + dir, "-rpcuser=cli", "--wallet=w2", "-rpcworkqueue=9"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Network.Name != "regtest" || cfg.NetDir != filepath.Join(dir, "regtest") {
		t.Errorf("network %s in %s", cfg.Network.Name, cfg.NetDir)
	}
	r := cfg.RPC
	if r.User != "cli" || r.Password != "filepass" || r.Port != 20000 || r.Threads != 4 ||
		r.WorkQueue != 9 || r.Timeout != 30*time.Second || r.CookieFile != "" {
		t.Errorf("rpc config %+v", r)
	}
	if got := strings.Join(cfg.Wallet.Load, ","); got != "w1,w2" {
		t.Errorf("wallets %q", got)
	}
	if got := strings.Join(r.AllowIP, ","); got != "10.0.0.0/8" {
		t.Errorf("allowip %q", got)
	}
	if cfg.Logging.File != filepath.Join(dir, "regtest", "debug.log") {
		t.Errorf("log file %s", cfg.Logging.File)
	}
}

func TestLoadConfigNetworks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args       []string
		name, sub  string
		port       int
		cookieFile string
	}{
		{nil, "main", "", 8336, ".cookie"},
		{[]string{"-testnet"}, "test", "testnet3", 18336, ".cookie"},
		{[]string{"-chain=testnet4"}, "testnet4", "testnet4", 48336, ".cookie"},
		{[]string{"-signet"}, "signet", "signet", 38336, ".cookie"},
		{[]string{"-regtest", "-rpccookiefile=c"}, "regtest", "regtest", 18446, "c"},
	} {
		cfg, err := LoadConfig(append([]string{"-datadir=" + dir}, tc.args...))
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if cfg.Network.Name != tc.name || cfg.RPC.Port != tc.port ||
			cfg.NetDir != filepath.Join(dir, tc.sub) ||
			cfg.RPC.CookieFile != filepath.Join(dir, tc.sub, tc.cookieFile) ||
			cfg.RPC.CookiePerms != 0o600 {
			t.Errorf("%v: %s port %d dir %s cookie %s", tc.args, cfg.Network.Name, cfg.RPC.Port, cfg.NetDir, cfg.RPC.CookieFile)
		}
	}
	for _, bad := range [][]string{
		{"-nosuchoption"}, {"-regtest", "-testnet"}, {"-chain=foo"}, {"-rpcport=x"},
		{"-rpcport=70000"}, {"-rpccookieperms=everyone"}, {"stray"}, {"-conf=missing.conf"},
	} {
		if _, err := LoadConfig(append([]string{"-datadir=" + dir}, bad...)); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestLogs(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "regtest", "debug.log")
	logs, err := OpenLogs(path, false, []string{"wallet"})
	if err != nil {
		t.Fatal(err)
	}
	logs.Logger(SubWallet).Debug("wallet detail", "name", "a b")
	logs.Logger(SubRPC).Debug("rpc detail")
	logs.Logger(SubRPC).With("peer", "x").WithGroup("g").Info("rpc info", "k", 1)
	logs.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`DEBUG [WLLT] wallet detail name="a b"`)) ||
		bytes.Contains(data, []byte("rpc detail")) ||
		!bytes.Contains(data, []byte("INFO [RPCS] rpc info peer=x g.k=1")) {
		t.Errorf("log:\n%s", data)
	}
	if _, err := OpenLogs("", false, []string{"nosuch"}); err == nil {
		t.Error("unknown -debug category accepted")
	}
}

// TestLoadConfigWhitelist checks -rpcwhitelist and -rpcwhitelistdefault.
// Core accepts every -rpcwhitelist text (a value without ':' names a user
// with an empty list), so none fails startup.
func TestLoadConfigWhitelist(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conf := "regtest=1\nrpcwhitelist=alice:getinfo,help\n"
	if err := os.WriteFile(filepath.Join(dir, ConfigFileName), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args      []string
		whitelist string
		deflt     string // "" for not given
	}{
		{nil, "alice:getinfo,help", ""},
		{[]string{"-rpcwhitelist=alice:help", "-rpcwhitelist=bob"}, "alice:getinfo,help|alice:help|bob", ""},
		{[]string{"-rpcwhitelist=", "-rpcwhitelist=:x y"}, "alice:getinfo,help||:x y", ""},
		{[]string{"-norpcwhitelist"}, "", ""},
		{[]string{"-rpcwhitelistdefault=0"}, "alice:getinfo,help", "false"},
		{[]string{"-rpcwhitelistdefault"}, "alice:getinfo,help", "true"},
		{[]string{"-norpcwhitelistdefault"}, "alice:getinfo,help", "false"},
	} {
		cfg, err := LoadConfig(append([]string{"-datadir=" + dir}, tc.args...))
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if got := strings.Join(cfg.RPC.Whitelist, "|"); got != tc.whitelist {
			t.Errorf("%v: whitelist %q, want %q", tc.args, got, tc.whitelist)
		}
		got := ""
		if d := cfg.RPC.WhitelistDefault; d != nil {
			got = strconv.FormatBool(*d)
		}
		if got != tc.deflt {
			t.Errorf("%v: whitelistdefault %q, want %q", tc.args, got, tc.deflt)
		}
	}
}

// TestLoadConfigWalletOptions: the spending options reach the wallet
// options with Core's defaults, checks and warnings, from the command line
// and the file.
func TestLoadConfigWalletOptions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ConfigFileName), []byte("fallbackfee=0.0002\nwalletrbf=0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig([]string{"-datadir=" + dir, "-regtest", "-deprecatedrpc=settxfee", "-maxtxfee=2", "-txconfirmtarget=3"})
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Wallet.Options
	if o.FallbackFee != 20000 || o.WalletRBF || o.MaxTxFee != 200000000 || o.TxConfirmTarget != 3 ||
		!o.DeprecatedRPC["settxfee"] || o.DiscardFee != 10000 || !o.SpendZeroConfChange {
		t.Fatalf("options %+v", o)
	}
	if len(cfg.Wallet.Warnings) != 1 || cfg.Wallet.Warnings[0] != "-maxtxfee is set very high! Fees this large could be paid on a single transaction." {
		t.Fatalf("warnings %q", cfg.Wallet.Warnings)
	}
	_, err = LoadConfig([]string{"-datadir=" + dir, "-regtest", "-mintxfee=0.1x"})
	if err == nil || err.Error() != "Invalid amount for -mintxfee=<amount>: '0.1x'" {
		t.Fatalf("bad -mintxfee: %v", err)
	}
	// -addresstype reaches the wallets' options (bech32 when unset).
	if o.DefaultAddressType() != "bech32" {
		t.Fatalf("default address type %q", o.DefaultAddressType())
	}
	cfg, err = LoadConfig([]string{"-datadir=" + dir, "-regtest", "-addresstype=bech32m"})
	if err != nil || cfg.Wallet.Options.DefaultAddressType() != "bech32m" {
		t.Fatalf("-addresstype=bech32m: %v", err)
	}
	_, err = LoadConfig([]string{"-datadir=" + dir, "-regtest", "-addresstype=p2tr"})
	if err == nil || err.Error() != "Unknown address type 'p2tr'" {
		t.Fatalf("bad -addresstype: %v", err)
	}
}

// TestLoadConfigEvents reads the event delivery options: defaults, the
// webhook URLs and hosts, and the refusals (a host neither loopback nor
// listed, a webhook without a secret, bounds), none of which shows the
// secret.
func TestLoadConfigEvents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg, err := LoadConfig([]string{"-datadir=" + dir, "-regtest"})
	if err != nil {
		t.Fatal(err)
	}
	if ev := cfg.Events; ev.MaxStreams != 32 || ev.Heartbeat != 15*time.Second || len(ev.Webhooks) != 0 {
		t.Errorf("defaults %+v", ev)
	}
	cfg, err = LoadConfig([]string{"-datadir=" + dir, "-regtest", "-eventwebhook=http://127.0.0.1:9/a",
		"-eventwebhook=https://hooks.example.com/b", "-eventwebhookhosts=other.example, hooks.example.com",
		"-eventwebhooksecret=k3y", "-eventstreams=4", "-eventheartbeat=2"})
	if err != nil {
		t.Fatal(err)
	}
	ev := cfg.Events
	if len(ev.Webhooks) != 2 || strings.Join(ev.WebhookHosts, ",") != "other.example,hooks.example.com" ||
		ev.WebhookSecret != "k3y" || ev.MaxStreams != 4 || ev.Heartbeat != 2*time.Second {
		t.Errorf("events config %+v", ev)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-eventwebhook=http://hooks.example.com/", "-eventwebhooksecret=k3y"}, "not loopback and not in -eventwebhookhosts"},
		{[]string{"-eventwebhook=http://127.0.0.1/"}, "-eventwebhook needs -eventwebhooksecret"},
		{[]string{"-eventwebhook=http://u:p@127.0.0.1/", "-eventwebhooksecret=k3y"}, "credentials in the URL"},
		{[]string{"-eventstreams=0"}, "invalid -eventstreams=0"},
		{[]string{"-eventheartbeat=0"}, "invalid -eventheartbeat=0"},
	} {
		_, err := LoadConfig(append([]string{"-datadir=" + dir, "-regtest"}, tc.args...))
		if err == nil || !strings.Contains(err.Error(), tc.msg) || strings.Contains(err.Error(), "k3y") {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.msg)
		}
	}
}
