package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/descwallet/descwallet/internal/pgstore"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/rpc/methods"
	"github.com/descwallet/descwallet/internal/safego"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
	"github.com/descwallet/descwallet/internal/walletscan"
	"github.com/descwallet/descwallet/internal/webhook"
)

// shutdownTimeout bounds the wait for running calls at shutdown.
const shutdownTimeout = 30 * time.Second

var errLocked = errors.New("locked")

// Node is a running descwallet node: its data dir, logs, RPC server and
// (as they land) wallets and chain backend.
type Node struct {
	cfg   *Config
	logs  *Logs
	log   *slog.Logger
	lock  *os.File
	srv   *rpc.Server
	wlt   *wallet.Manager
	chain *walletscan.Service // nil when offline
	pg    *pgstore.DB         // nil unless -walletdb names PostgreSQL
	notif *notifier           // nil without -walletnotify and -blocknotify
	hooks *webhook.Dispatcher // nil without -eventwebhook
	lns   []net.Listener
	start time.Time

	cookieWritten bool

	stopOnce  sync.Once
	stopped   chan struct{} // closed when a stop is requested
	pruneDone chan struct{} // closed when event pruning ended; nil without it
	serveErr  chan error
	wg        sync.WaitGroup
}

// New prepares a node from its configuration; Start brings it up.
func New(cfg *Config) *Node {
	return &Node{cfg: cfg, stopped: make(chan struct{}), serveErr: make(chan error, 4)}
}

// Start opens the data dir and log, sets up authentication, binds the RPC
// listeners, writes the cookie and starts serving. On error everything
// opened so far is released.
func (n *Node) Start(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			n.release()
		}
	}()
	n.start = time.Now()
	cfg := n.cfg

	// The data dir: an explicit -datadir must exist; the network folder is
	// created.
	if cfg.DataDirGiven {
		if st, err := os.Stat(cfg.DataDir); err != nil || !st.IsDir() {
			return fmt.Errorf("specified data directory %q does not exist", cfg.DataDir)
		}
	}
	if err := os.MkdirAll(cfg.NetDir, 0o700); err != nil {
		return fmt.Errorf("cannot create data directory %q: %v", cfg.NetDir, err)
	}
	if err := os.MkdirAll(filepath.Join(cfg.NetDir, "wallets"), 0o700); err != nil {
		return fmt.Errorf("cannot create data directory %q: %v", cfg.NetDir, err)
	}
	lock, err := lockDir(filepath.Join(cfg.NetDir, ".lock"))
	if errors.Is(err, errLocked) {
		return fmt.Errorf("cannot obtain a lock on data directory %s; descwalletd is probably already running", cfg.NetDir)
	}
	if err != nil {
		return fmt.Errorf("data directory %q is not usable: %v", cfg.NetDir, err)
	}
	n.lock = lock

	n.logs, err = OpenLogs(cfg.Logging.File, cfg.Logging.Console, cfg.Logging.Debug)
	if err != nil {
		return fmt.Errorf("cannot open log file: %v", err)
	}
	n.log = n.logs.Logger(SubNode)
	safego.SetLogger(n.log)
	n.log.Info("descwalletd starting", "network", cfg.Network.Name, "datadir", cfg.DataDir)
	n.log.Debug("settings", "rpcthreads", cfg.RPC.Threads, "rpcworkqueue", cfg.RPC.WorkQueue,
		"rpcservertimeout", cfg.RPC.Timeout, "keypool", cfg.Wallet.Keypool,
		"chainbackend", cfg.Chain.Backend, "wallets", len(cfg.Wallet.Load))
	if cfg.ConfFile != "" {
		n.log.Info("configuration file read", "path", cfg.ConfFile)
	}

	// Credentials.
	auth := rpc.NewAuthenticator()
	for _, v := range cfg.RPC.Auth {
		if err := auth.AddRPCAuth(v); err != nil {
			return fmt.Errorf("invalid -rpcauth argument")
		}
	}
	var cookie string
	switch {
	case cfg.RPC.Password != "":
		auth.AddPassword(cfg.RPC.User, cfg.RPC.Password)
		n.log.Warn("plain -rpcuser/-rpcpassword in use; -rpcauth keeps only a salted hash")
	case cfg.RPC.CookieFile != "":
		cookie = rpc.GenerateCookie()
		auth.AddCookie(cookie)
	}
	if auth.Empty() {
		n.log.Warn("no RPC credentials: every call will be refused")
	}

	allow := make([]netip.Prefix, 0, len(cfg.RPC.AllowIP))
	for _, v := range cfg.RPC.AllowIP {
		p, err := rpc.ParseAllowIP(v)
		if err != nil {
			return err
		}
		allow = append(allow, p)
	}
	if len(allow) > 0 {
		allow = append(allow, netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128"))
	}

	var whitelist *rpc.Whitelist
	if len(cfg.RPC.Whitelist) > 0 || cfg.RPC.WhitelistDefault != nil {
		whitelist = rpc.NewWhitelist(cfg.RPC.Whitelist, cfg.RPC.WhitelistDefault)
	}

	// Notification commands, then the chain backend, if any; "now" is its
	// tip's median time past.
	n.notif = newNotifier(cfg.Wallet.Notify, cfg.Chain.BlockNotify, n.log)
	if n.chain, err = n.openChain(ctx); err != nil {
		return err
	}
	var now func() int64
	if n.chain != nil {
		now = n.chain.Now
	}

	// Wallets: those named with -wallet and those in the startup list.
	opts := cfg.Wallet.Options
	if opts.DeprecatedRPC == nil {
		opts = wallet.DefaultOptions()
	}
	var opener wallet.Opener = walletdb.Opener{Log: n.logs.Logger(SubStore)}
	if cfg.Wallet.DB != "" {
		name, err := nodeName(cfg.NetDir)
		if err != nil {
			return fmt.Errorf("data directory %q is not usable: %v", cfg.NetDir, err)
		}
		if n.pg, err = pgstore.ConnectAs(ctx, cfg.Wallet.DB, name); err != nil {
			return err
		}
		opener = walletdb.PGOpener{DB: n.pg, Root: filepath.Join(cfg.NetDir, "wallets"),
			Namespace: cfg.Network.Name, Log: n.logs.Logger(SubStore), Shared: cfg.Wallet.Shared}
	}
	mcfg := wallet.ManagerConfig{
		NetDir:      cfg.NetDir,
		Net:         cfg.Network.Params,
		Opener:      opener,
		Keypool:     cfg.Wallet.Keypool,
		Now:         now,
		Log:         n.logs.Logger(SubWallet),
		DescLog:     n.logs.Logger(SubDescriptor),
		Options:     &opts,
		EventDepths: cfg.Wallet.EventDepths,
	}
	if cfg.Wallet.Notify != "" {
		mcfg.TxNotify = n.notif.walletTx
	}
	n.wlt = wallet.NewManager(mcfg)
	for _, w := range cfg.Wallet.Warnings {
		n.logs.Logger(SubWallet).Warn(w)
	}
	// A crash may have left a half-made wallet or a rewrite to finish.
	for path, err := range n.wlt.Recover(ctx) {
		n.logs.Logger(SubWallet).Error("wallet folder not recovered", "path", path, "err", err)
	}
	for name, err := range n.wlt.LoadStartup(ctx, cfg.Wallet.Load) {
		n.logs.Logger(SubWallet).Error("wallet not loaded", "wallet", name, "err", err)
	}
	deps := &methods.Deps{
		Net:       cfg.Network.Params,
		Stop:      n.RequestStop,
		StartTime: n.start,
		Wallets:   n.wlt,
		Logging:   n.logs,
	}
	deps.Rescans = walletscan.NewRescans()
	if n.chain != nil {
		deps.Chain = n.chain
		deps.Rescans = n.chain.Rescans()
		n.chain.Attach(n.wlt)
	}
	feed := methods.EventFeed{Wallets: n.wlt}
	if len(cfg.Events.Webhooks) > 0 {
		n.hooks, err = webhook.New(webhook.Config{
			URLs:   cfg.Events.Webhooks,
			Hosts:  cfg.Events.WebhookHosts,
			Secret: []byte(cfg.Events.WebhookSecret),
			Source: webhookSource{wallets: n.wlt, feed: feed},
			Log:    n.logs.Logger(SubWallet),
		})
		if err != nil {
			return err
		}
	}
	// Pruning keeps what a webhook has not acknowledged.
	n.startPruner(cfg.Wallet.EventRetention, n.hooks.Targets())
	n.srv, err = rpc.NewServer(rpc.Config{
		Methods:     methods.All(deps),
		Auth:        auth,
		AllowIPs:    allow,
		Whitelist:   whitelist,
		Threads:     cfg.RPC.Threads,
		WorkQueue:   cfg.RPC.WorkQueue,
		ReadTimeout: cfg.RPC.Timeout,
		MapError:    methods.MapError,
		Logger:      n.logs.Logger(SubRPC),
		LogPath:     n.logs.Path(),
		Events:      feed,
		MaxStreams:  cfg.Events.MaxStreams,
		Heartbeat:   cfg.Events.Heartbeat,
	})
	if err != nil {
		return err
	}
	deps.RPCInfo = n.srv.Info

	// Listeners: -rpcbind only together with -rpcallowip, as in Core;
	// otherwise loopback.
	binds := cfg.RPC.Bind
	if len(binds) > 0 && len(cfg.RPC.AllowIP) == 0 {
		n.log.Warn("-rpcbind ignored because -rpcallowip was not given; listening on loopback only")
		binds = nil
	}
	loopback := len(binds) == 0
	if loopback {
		binds = []string{"127.0.0.1", "::1"}
	}
	for _, b := range binds {
		addr := b
		if _, _, err := net.SplitHostPort(b); err != nil {
			addr = net.JoinHostPort(b, strconv.Itoa(cfg.RPC.Port))
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			// IPv6 loopback may be missing; IPv4 loopback must work.
			if loopback && b == "::1" {
				n.log.Info("IPv6 loopback not available for RPC", "err", err)
				continue
			}
			return fmt.Errorf("unable to bind the RPC server to %s: %v", addr, innermost(err))
		}
		n.lns = append(n.lns, l)
		n.log.Info("RPC server listening", "addr", l.Addr().String())
	}

	// The cookie, once the port is ours.
	if cookie != "" {
		if err := rpc.WriteCookieFile(cfg.RPC.CookieFile, cookie, cfg.RPC.CookiePerms); err != nil {
			return fmt.Errorf("unable to write the RPC cookie file %s: %v", cfg.RPC.CookieFile, err)
		}
		n.cookieWritten = true
		n.log.Info("RPC cookie written", "path", cfg.RPC.CookieFile)
	}

	for _, l := range n.lns {
		n.wg.Add(1)
		safego.Go("RPC listener", func() error {
			defer n.wg.Done()
			err := safego.Run("RPC listener", func() error { return n.srv.Serve(l) })
			if err != nil && !errors.Is(err, http.ErrServerClosed) {
				n.serveErr <- err
			}
			return nil
		})
	}
	if n.chain != nil {
		n.chain.Start()
	}
	n.hooks.Start()
	n.log.Info("node started")
	return nil
}

// RPCAddrs returns the addresses the RPC server listens on.
func (n *Node) RPCAddrs() []string {
	out := make([]string, len(n.lns))
	for i, l := range n.lns {
		out[i] = l.Addr().String()
	}
	return out
}

// RequestStop asks the node to stop; it returns at once.
func (n *Node) RequestStop() {
	n.stopOnce.Do(func() { close(n.stopped) })
}

// Done is closed when a stop has been requested.
func (n *Node) Done() <-chan struct{} { return n.stopped }

// Stop shuts the node down in reverse order of start: the RPC server
// (waiting for running calls), the cookie, the log and the lock.
func (n *Node) Stop() error {
	n.RequestStop()
	var err error
	if n.chain != nil {
		// Running rescans stop first, so that the calls waiting on them
		// return before the server shuts down.
		n.chain.Stop()
	}
	if n.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		err = n.srv.Shutdown(ctx)
		cancel()
		n.wg.Wait()
	}
	n.release()
	return err
}

// release removes the cookie and closes the log and lock.
func (n *Node) release() {
	for _, l := range n.lns {
		l.Close()
	}
	if n.chain != nil {
		n.chain.Stop()
		n.chain = nil
	}
	// Deliveries stop before the wallets they read close.
	n.hooks.Stop()
	n.hooks = nil
	if n.pruneDone != nil {
		n.RequestStop()
		<-n.pruneDone
		n.pruneDone = nil
	}
	if n.wlt != nil {
		if err := n.wlt.Close(); err != nil && n.log != nil {
			n.log.Error("closing wallets", "err", err)
		}
		n.wlt = nil
	}
	if n.pg != nil {
		n.pg.Close()
		n.pg = nil
	}
	n.notif.stop()
	n.notif = nil
	if n.cookieWritten {
		if err := os.Remove(n.cfg.RPC.CookieFile); err != nil && n.log != nil {
			n.log.Warn("cannot remove the RPC cookie", "err", err)
		}
		n.cookieWritten = false
	}
	if n.log != nil {
		n.log.Info("node stopped")
	}
	if n.logs != nil {
		n.logs.Close()
		n.logs = nil
	}
	if n.lock != nil {
		n.lock.Close()
		os.Remove(n.lock.Name())
		n.lock = nil
	}
}

// Run is the daemon's main: it loads the configuration from argv, starts
// the node, waits for SIGINT, SIGTERM or the stop call, and stops it. It
// returns the process exit code; errors are printed to stderr.
func Run(argv []string) int {
	cfg, err := LoadConfig(argv)
	if errors.Is(err, ErrHelp) {
		os.Stdout.WriteString(Usage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		return 1
	}
	n := New(cfg)
	if err := n.Start(context.Background()); err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		return 1
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	code := 0
	select {
	case s := <-sig:
		n.log.Info("signal received, shutting down", "signal", s.String())
	case <-n.Done():
		n.log.Info("stop requested, shutting down")
	case err := <-n.serveErr:
		n.log.Error("RPC server failed", "err", err)
		fmt.Fprintf(os.Stderr, "Error: RPC server failed: %v\n", err)
		code = 1
	}
	// Let the stop call's reply leave before the listeners close.
	if err := n.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "Error: shutdown: %v\n", err)
		code = 1
	}
	return code
}

// innermost returns the deepest wrapped error (for "address already in
// use" without the Go wrappers).
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
