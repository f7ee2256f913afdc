package node

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/webhook"
)

// ConfigFileName is the default configuration file inside the data dir.
const ConfigFileName = "descwallet.conf"

// optKind is how an option's values are read.
type optKind int

const (
	optString optKind = iota
	optInt
	optBool
	optList // repeatable
)

// options is the table of accepted options. A name that is not here is an
// error, as in Core.
var options = map[string]optKind{
	"chain": optString, "regtest": optBool, "testnet": optBool,
	"testnet4": optBool, "signet": optBool,
	"datadir": optString, "conf": optString,
	"rpcbind": optList, "rpcport": optInt, "rpcuser": optString,
	"rpcpassword": optString, "rpcauth": optList, "rpccookiefile": optString,
	"rpccookieperms": optString, "rpcallowip": optList, "rpcthreads": optInt,
	"rpcworkqueue": optInt, "rpcservertimeout": optInt,
	"rpcwhitelist": optList, "rpcwhitelistdefault": optBool,
	"chainbackend": optString, "chainrpcconnect": optString,
	"chainrpcuser": optString, "chainrpcpassword": optString,
	"chainrpccookiefile": optString, "chainrpccert": optString, "chainpoll": optInt,
	"wallet": optList, "keypool": optInt, "addresstype": optString, "walletresendinterval": optInt,
	"changetype": optString, "walletdb": optString, "walletdbshared": optBool,
	"walletrbf": optBool, "txconfirmtarget": optInt, "spendzeroconfchange": optBool,
	"walletbroadcast": optBool, "avoidpartialspends": optBool, "maxapsfee": optString,
	"discardfee": optString, "fallbackfee": optString, "mintxfee": optString,
	"paytxfee": optString, "maxtxfee": optString, "consolidatefeerate": optString,
	"deprecatedrpc": optList, "walletnotify": optString, "blocknotify": optString, "eventconfirmations": optString,
	"eventstreams": optInt, "eventheartbeat": optInt, "eventretention": optString,
	"eventwebhook": optList, "eventwebhookhosts": optList, "eventwebhooksecret": optString,
	"debug": optList, "printtoconsole": optBool,
	"server": optBool, "daemon": optBool,
	"help": optBool, "version": optBool,
}

// Config is the node's configuration after defaults, the config file and
// the command line (the command line wins).
type Config struct {
	// Network is the chain to run on.
	Network *Network
	// DataDir is the data directory root; NetDir the network's folder in
	// it (equal to DataDir on main).
	DataDir, NetDir string
	// DataDirGiven reports whether -datadir was set (it must then exist).
	DataDirGiven bool
	// ConfFile is the configuration file read, "" when none.
	ConfFile string

	RPC     RPCConfig
	Chain   ChainConfig
	Wallet  WalletConfig
	Events  EventsConfig
	Logging LogConfig
}

// EventsConfig is the delivery of the wallets' event logs: the stream
// endpoint of the RPC port and the webhooks.
type EventsConfig struct {
	// Webhooks are the -eventwebhook URLs, checked (loopback or a listed
	// host).
	Webhooks []string
	// WebhookHosts are the -eventwebhookhosts names allowed besides
	// loopback.
	WebhookHosts []string
	// WebhookSecret is -eventwebhooksecret, the HMAC key of the
	// deliveries. Never logged.
	WebhookSecret string
	// MaxStreams bounds the event streams and long polls open at once
	// (-eventstreams).
	MaxStreams int
	// Heartbeat is how often an idle stream sends a comment
	// (-eventheartbeat, seconds).
	Heartbeat time.Duration
}

// RPCConfig is the RPC server's configuration.
type RPCConfig struct {
	Bind        []string // host or host:port; empty means loopback
	Port        int
	User        string
	Password    string
	Auth        []string // -rpcauth values
	CookieFile  string   // absolute path; "" when cookie auth is off
	CookiePerms os.FileMode
	AllowIP     []string
	Threads     int
	WorkQueue   int
	Timeout     time.Duration
	// Whitelist holds the -rpcwhitelist values, "<user>:<method>,...".
	Whitelist []string
	// WhitelistDefault is -rpcwhitelistdefault when given; nil means the
	// default (on when any -rpcwhitelist is given).
	WhitelistDefault *bool
}

// ChainConfig selects the chain backend (used once the chain package lands).
type ChainConfig struct {
	Backend    string // "bitcoind", "btcd" or "" for offline
	Connect    string
	User       string
	Password   string
	CookieFile string
	Cert       string
	// Poll is how often the backend's tip and mempool are read.
	Poll time.Duration
	// BlockNotify is -blocknotify: a shell command run when the best
	// block changes ("" for none).
	BlockNotify string
	// ResendInterval is the hidden, test-only -walletresendinterval=<ms>:
	// the wallets resubmit their transactions outside the mempool at this
	// fixed interval, whatever their age, instead of Core's random 12 to
	// 36 hours for those older than 5 minutes (0: Core's).
	ResendInterval time.Duration
}

// WalletConfig holds the wallet options.
type WalletConfig struct {
	Load        []string
	Keypool     int
	AddressType string
	ChangeType  string
	// Options are the spending options (-fallbackfee, -walletrbf, ...)
	// with Core's defaults; Warnings are Core's startup warnings about
	// them (logged).
	Options  wallet.Options
	Warnings []string
	// Notify is -walletnotify: a shell command run for each wallet
	// transaction that comes in or changes state ("" for none).
	Notify string
	// EventDepths are the -eventconfirmations depths the event logs
	// report, ascending.
	EventDepths []int32
	// DB is -walletdb: "" for SQLite files in the wallets folder, or a
	// postgres:// URL of the PostgreSQL database holding the wallets.
	DB string
	// EventRetention is -eventretention: which events pruning removes.
	EventRetention wallet.EventRetention
	// Shared is -walletdbshared: the PostgreSQL wallets are served by
	// several nodes together (opened without their open lock, addresses
	// handed out by the database, changes seen across nodes).
	Shared bool
}

// LogConfig holds the logging options.
type LogConfig struct {
	// Debug lists the -debug values (subsystems, "1"/"all", "0"/"none").
	Debug []string
	// Console also writes the log to standard output.
	Console bool
	// File is the debug log path.
	File string
}

// args holds option values by name, in the order given.
type args map[string][]string

// parseArgs reads bitcoind-style flags: -name=value, -name (true), -noname
// (false), with one or two leading dashes. Arguments that do not start with
// a dash are an error.
func parseArgs(argv []string) (args, error) {
	a := args{}
	for _, arg := range argv {
		if !strings.HasPrefix(arg, "-") {
			return nil, fmt.Errorf("command line contains unexpected token '%s', see descwalletd -help for a list of options", arg)
		}
		s := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
		if err := a.set(s, "command line"); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// set records one "name[=value]" setting.
func (a args) set(s, where string) error {
	name, value, hasValue := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	neg := false
	if _, ok := options[name]; !ok && strings.HasPrefix(name, "no") {
		if _, ok := options[name[2:]]; ok {
			name, neg = name[2:], true
		}
	}
	kind, ok := options[name]
	if !ok {
		return fmt.Errorf("invalid parameter -%s (%s)", name, where)
	}
	switch {
	case neg:
		if kind == optList {
			a[name] = nil
			a["no"+name] = []string{"1"}
			return nil
		}
		value = "0"
	case !hasValue && (kind == optBool || kind == optList):
		value = "1"
	case !hasValue:
		value = ""
	}
	if kind == optList {
		a[name] = append(a[name], value)
	} else {
		a[name] = []string{value}
	}
	return nil
}

// merge adds the settings of lower beneath a: for single values a wins;
// list values of both are kept, lower's first (a -noname in a drops
// lower's values).
func (a args) merge(lower args) {
	for k, v := range lower {
		if options[k] == optList {
			if _, negated := a["no"+k]; negated {
				continue
			}
			a[k] = append(append([]string(nil), v...), a[k]...)
			continue
		}
		if _, ok := a[k]; !ok {
			a[k] = v
		}
	}
}

func (a args) str(name, def string) string {
	if v, ok := a[name]; ok && len(v) > 0 {
		return v[len(v)-1]
	}
	return def
}

func (a args) boolean(name string) bool {
	v := a.str(name, "0")
	return v != "0" && v != "" && v != "false"
}

func (a args) integer(name string, def int) (int, error) {
	v, ok := a[name]
	if !ok || len(v) == 0 {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v[len(v)-1]))
	if err != nil {
		return 0, fmt.Errorf("invalid value for -%s: %q is not a number", name, v[len(v)-1])
	}
	return n, nil
}

// readConfFile reads name=value lines; "#" starts a comment; "[net]"
// sections and "net.name=value" lines apply only to that network.
func readConfFile(path string) (top args, sections map[string]args, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	top, sections = args{}, map[string]args{}
	section := ""
	sc := bufio.NewScanner(f)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		where := fmt.Sprintf("%s, line %d", path, lineNo)
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = strings.TrimSpace(line[1 : len(line)-1])
			if _, err := NetworkByName(section); err != nil {
				return nil, nil, fmt.Errorf("unknown section [%s] (%s)", section, where)
			}
			continue
		}
		if !strings.Contains(line, "=") {
			return nil, nil, fmt.Errorf("parse error on line %d of %s: %q (options need name=value)", lineNo, path, line)
		}
		target, sec := top, section
		name, _, _ := strings.Cut(line, "=")
		if net, rest, ok := strings.Cut(strings.TrimSpace(name), "."); ok {
			if _, err := NetworkByName(net); err == nil {
				sec = net
				line = rest + line[len(name):]
			}
		}
		if sec != "" {
			if sections[sec] == nil {
				sections[sec] = args{}
			}
			target = sections[sec]
		}
		name, value, _ := strings.Cut(line, "=")
		if err := target.set(strings.TrimSpace(name)+"="+strings.TrimSpace(value), where); err != nil {
			return nil, nil, err
		}
	}
	return top, sections, sc.Err()
}

// ErrHelp is returned by LoadConfig for -help.
var ErrHelp = errors.New("help requested")

// LoadConfig builds the configuration from the command-line arguments
// (without the program name): defaults, then the config file, then the
// command line.
func LoadConfig(argv []string) (*Config, error) {
	cl, err := parseArgs(argv)
	if err != nil {
		return nil, err
	}
	if cl.boolean("help") {
		return nil, ErrHelp
	}

	cfg := &Config{}
	dataDir := cl.str("datadir", "")
	if dataDir != "" {
		cfg.DataDirGiven = true
	} else {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("cannot find the home directory for the default data dir: %v", err)
		}
		dataDir = filepath.Join(home, ".descwallet")
	}
	if dataDir, err = filepath.Abs(dataDir); err != nil {
		return nil, err
	}
	cfg.DataDir = dataDir

	// The config file: -conf (relative to the data dir), else the default
	// name in the data dir when it exists.
	conf := cl.str("conf", "")
	mustExist := conf != ""
	if conf == "" {
		conf = ConfigFileName
	}
	if !filepath.IsAbs(conf) {
		conf = filepath.Join(dataDir, conf)
	}
	all := cl
	if _, statErr := os.Stat(conf); statErr == nil {
		top, sections, err := readConfFile(conf)
		if err != nil {
			return nil, fmt.Errorf("error reading configuration file: %v", err)
		}
		cfg.ConfFile = conf
		// The network can come from the file too.
		probe := args{}
		for k, v := range cl {
			probe[k] = v
		}
		probe.merge(top)
		net, err := chooseNetwork(probe)
		if err != nil {
			return nil, err
		}
		all = args{}
		for k, v := range cl {
			all[k] = v
		}
		if sec := sections[net.Name]; sec != nil {
			all.merge(sec)
		}
		all.merge(top)
	} else if mustExist {
		return nil, fmt.Errorf("specified config file %q could not be opened", conf)
	}

	if cfg.Network, err = chooseNetwork(all); err != nil {
		return nil, err
	}
	cfg.NetDir = filepath.Join(dataDir, cfg.Network.Dir)

	// RPC.
	r := &cfg.RPC
	r.Bind = all["rpcbind"]
	if r.Port, err = all.integer("rpcport", cfg.Network.RPCPort); err != nil {
		return nil, err
	}
	if r.Port <= 0 || r.Port > 65535 {
		return nil, fmt.Errorf("invalid port specified in -rpcport: '%d'", r.Port)
	}
	r.User = all.str("rpcuser", "")
	r.Password = all.str("rpcpassword", "")
	if _, off := all["norpcauth"]; !off {
		r.Auth = all["rpcauth"]
	}
	if _, off := all["rpccookiefile"]; off && all.str("rpccookiefile", "") == "0" {
		r.CookieFile = ""
	} else if r.Password == "" {
		cf := all.str("rpccookiefile", ".cookie")
		if !filepath.IsAbs(cf) {
			cf = filepath.Join(cfg.NetDir, cf)
		}
		r.CookieFile = cf
	}
	switch p := all.str("rpccookieperms", "owner"); p {
	case "owner", "":
		r.CookiePerms = 0o600
	case "group":
		r.CookiePerms = 0o640
	case "all":
		r.CookiePerms = 0o644
	default:
		return nil, fmt.Errorf("invalid -rpccookieperms=%s; must be one of 'owner', 'group', or 'all'", p)
	}
	if _, off := all["norpcallowip"]; !off {
		r.AllowIP = all["rpcallowip"]
	}
	if _, off := all["norpcwhitelist"]; !off {
		r.Whitelist = all["rpcwhitelist"]
	}
	if _, set := all["rpcwhitelistdefault"]; set {
		d := all.boolean("rpcwhitelistdefault")
		r.WhitelistDefault = &d
	}
	if r.Threads, err = all.integer("rpcthreads", 16); err != nil {
		return nil, err
	}
	if r.WorkQueue, err = all.integer("rpcworkqueue", 64); err != nil {
		return nil, err
	}
	timeout, err := all.integer("rpcservertimeout", 30)
	if err != nil {
		return nil, err
	}
	r.Threads, r.WorkQueue = max(r.Threads, 1), max(r.WorkQueue, 1)
	r.Timeout = time.Duration(max(timeout, 1)) * time.Second

	// Chain backend.
	c := &cfg.Chain
	c.Backend = all.str("chainbackend", "")
	c.Connect = all.str("chainrpcconnect", "")
	c.User = all.str("chainrpcuser", "")
	c.Password = all.str("chainrpcpassword", "")
	c.CookieFile = all.str("chainrpccookiefile", "")
	c.Cert = all.str("chainrpccert", "")
	poll, err := all.integer("chainpoll", 2000)
	if err != nil {
		return nil, err
	}
	c.Poll = time.Duration(min(max(poll, 10), 600_000)) * time.Millisecond
	resend, err := all.integer("walletresendinterval", 0)
	if err != nil {
		return nil, err
	}
	c.ResendInterval = time.Duration(max(resend, 0)) * time.Millisecond
	switch c.Backend {
	case "", "bitcoind", "btcd":
	default:
		return nil, fmt.Errorf("invalid -chainbackend=%s; must be bitcoind or btcd", c.Backend)
	}
	if c.Backend == "" && c.Connect != "" {
		c.Backend = "bitcoind"
	}
	c.BlockNotify = notifyCmd(all, "blocknotify")

	// Wallets.
	w := &cfg.Wallet
	w.Load = all["wallet"]
	if w.Keypool, err = all.integer("keypool", 1000); err != nil {
		return nil, err
	}
	w.AddressType = all.str("addresstype", "bech32")
	w.ChangeType = all.str("changetype", "")
	w.Notify = notifyCmd(all, "walletnotify")
	if w.EventDepths, err = eventDepths(all.str("eventconfirmations", "1,6")); err != nil {
		return nil, err
	}
	switch db := all.str("walletdb", ""); {
	case db == "" || db == "sqlite":
	case strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://"):
		w.DB = db
	default:
		return nil, fmt.Errorf("invalid -walletdb: must be sqlite or a postgres:// URL")
	}
	if w.EventRetention, err = eventRetention(all.str("eventretention", "")); err != nil {
		return nil, err
	}
	if w.Shared = all.boolean("walletdbshared"); w.Shared && w.DB == "" {
		return nil, fmt.Errorf("-walletdbshared needs -walletdb=postgres://...")
	}
	w.Options, w.Warnings, err = wallet.ParseOptions(func(name string) (string, bool) {
		v, ok := all[name]
		if !ok || len(v) == 0 {
			return "", false
		}
		return v[len(v)-1], true
	}, all["deprecatedrpc"])
	if err != nil {
		return nil, err
	}

	// Event delivery.
	ev := &cfg.Events
	if ev.MaxStreams, err = all.integer("eventstreams", 32); err != nil {
		return nil, err
	}
	if ev.MaxStreams < 1 || ev.MaxStreams > 10000 {
		return nil, fmt.Errorf("invalid -eventstreams=%d; must be from 1 to 10000", ev.MaxStreams)
	}
	beat, err := all.integer("eventheartbeat", 15)
	if err != nil {
		return nil, err
	}
	if beat < 1 || beat > 3600 {
		return nil, fmt.Errorf("invalid -eventheartbeat=%d; must be from 1 to 3600 seconds", beat)
	}
	ev.Heartbeat = time.Duration(beat) * time.Second
	if _, off := all["noeventwebhook"]; !off {
		ev.Webhooks = all["eventwebhook"]
	}
	for _, v := range all["eventwebhookhosts"] {
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				ev.WebhookHosts = append(ev.WebhookHosts, h)
			}
		}
	}
	ev.WebhookSecret = all.str("eventwebhooksecret", "")
	for _, u := range ev.Webhooks {
		if _, err := webhook.CheckURL(u, ev.WebhookHosts); err != nil {
			return nil, err
		}
	}
	if len(ev.Webhooks) > 0 && ev.WebhookSecret == "" {
		return nil, errors.New("-eventwebhook needs -eventwebhooksecret (the key of the deliveries' HMAC-SHA256 signature)")
	}

	// Logging.
	cfg.Logging.Debug = all["debug"]
	cfg.Logging.Console = all.boolean("printtoconsole")
	cfg.Logging.File = filepath.Join(cfg.NetDir, "debug.log")
	return cfg, nil
}

// notifyCmd returns a notification command option; its negation
// (-nowalletnotify, read as "0") means none rather than a command "0".
func notifyCmd(a args, name string) string {
	if v := a.str(name, ""); v != "0" {
		return v
	}
	return ""
}

// maxEventDepth bounds -eventconfirmations.
const maxEventDepth = 10000

// eventDepths reads -eventconfirmations: comma-separated depths from 1 to
// maxEventDepth, returned ascending without repeats.
func eventDepths(v string) ([]int32, error) {
	var out []int32
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxEventDepth {
			return nil, fmt.Errorf("invalid -eventconfirmations=%s; must be depths from 1 to %d separated by commas", v, maxEventDepth)
		}
		out = append(out, int32(n))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// chooseNetwork applies -chain and the network shorthands; giving more than
// one is an error, as in Core.
func chooseNetwork(a args) (*Network, error) {
	var picked []string
	if v := a.str("chain", ""); v != "" {
		picked = append(picked, v)
	}
	for _, sh := range []struct{ flag, name string }{
		{"regtest", "regtest"}, {"testnet", "test"}, {"testnet4", "testnet4"}, {"signet", "signet"},
	} {
		if a.boolean(sh.flag) {
			picked = append(picked, sh.name)
		}
	}
	switch len(picked) {
	case 0:
		return NetworkByName("main")
	case 1:
		return NetworkByName(picked[0])
	}
	return nil, errors.New("invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain; can use at most one")
}

// Usage is the text printed for -help.
const Usage = `Usage: descwalletd [options]

Runs the descwallet node: descriptor wallets served over Bitcoin Core's
JSON-RPC. Options take the form -name=value; the same names, without the
dash, can be set in <datadir>/descwallet.conf (the command line wins).

Network:
  -chain=<net>          main, test, testnet4, signet or regtest (default main)
  -regtest, -testnet, -testnet4, -signet
                        shorthands for -chain
Files:
  -datadir=<dir>        data directory (default ~/.descwallet)
  -conf=<file>          configuration file (default <datadir>/descwallet.conf)
RPC server:
  -rpcbind=<addr>[:port]  listen address, repeatable (default loopback only)
  -rpcport=<port>       main 8336, test 18336, testnet4 48336, signet 38336,
                        regtest 18446
  -rpcuser=<user>, -rpcpassword=<pw>
                        credentials; without a password a cookie file is used
  -rpcauth=<user>:<salt>$<hash>
                        salted HMAC-SHA256 credentials, repeatable
  -rpccookiefile=<file> cookie location (default <network dir>/.cookie)
  -rpccookieperms=owner|group|all
                        cookie file mode 0600, 0640 or 0644 (default owner)
  -rpcallowip=<ip[/mask]>
                        clients allowed to connect, repeatable (default loopback)
  -rpcwhitelist=<user>:<method>[,<method>...]
                        methods the user may call, repeatable; lists given
                        for one user intersect
  -rpcwhitelistdefault  refuse every method to users without a whitelist
                        (default on when any -rpcwhitelist is given)
  -rpcthreads=<n>       calls run at once (default 16)
  -rpcworkqueue=<n>     requests that may wait for a worker (default 64)
  -rpcservertimeout=<s> seconds allowed to read a request (default 30)
Chain backend:
  -chainbackend=bitcoind|btcd, -chainrpcconnect=<host:port>,
  -chainrpcuser, -chainrpcpassword, -chainrpccookiefile, -chainrpccert
  -chainpoll=<ms>       how often the backend's tip and mempool are read
                        (default 2000)
  -blocknotify=<cmd>    run cmd through the shell when the best block changes
                        (%s in cmd is replaced by the block hash)
Wallets:
  -wallet=<name>        load at start, repeatable
  -keypool=<n>          keys derived ahead (default 1000)
  -addresstype, -changetype
  -eventconfirmations=<n>[,<n>...]
                        confirmation depths the wallet event log reports
                        (default 1,6)
  -eventretention=<n>|<age>[,...]
                        keep the newest n events of each wallet's event log,
                        or those younger than age (30d; s, m, h, d, w), or
                        both limits (default: keep every event); never
                        prunes what an -eventwebhook has not acknowledged
  -walletdb=sqlite|postgres://<user>:<password>@<host>:<port>/<database>
                        where wallets are kept: one SQLite file per wallet
                        in the wallets folder (default), or a PostgreSQL
                        database holding many wallets
  -walletdbshared       serve the PostgreSQL wallets together with other
                        nodes on the same database (default 0)
  -walletnotify=<cmd>   run cmd through the shell when a wallet transaction
                        comes in or changes (%s txid, %w wallet name, %b block
                        hash or "unconfirmed", %h block height or -1)
Wallet events (GET /wallet/<name>/events on the RPC port):
  -eventstreams=<n>     event streams and long polls open at once (default 32)
  -eventheartbeat=<s>   seconds between keep-alive comments of an idle
                        stream (default 15)
  -eventwebhook=<url>   POST every wallet's events to url, repeatable
                        (loopback hosts only, unless listed below)
  -eventwebhookhosts=<host>[,<host>...]
                        other hosts webhooks may be sent to, repeatable
  -eventwebhooksecret=<key>
                        HMAC-SHA256 key of the deliveries' signature header
                        (required with -eventwebhook)
Logging:
  -debug[=<subsystem>]  debug level for all or one subsystem (rpc, wallet,
                        descriptor, scan, store, node), repeatable
  -printtoconsole       also write the log to standard output
`
