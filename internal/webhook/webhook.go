// Package webhook delivers the wallets' event logs to HTTP endpoints
// (-eventwebhook): each event is POSTed at least once, in cursor order,
// signed with HMAC-SHA256 under -eventwebhooksecret, retried with
// exponential backoff until the endpoint answers 2xx, and the last cursor
// each endpoint acknowledged is stored per wallet, so that delivery
// resumes after it when the node restarts. Only loopback endpoints are
// allowed, and hosts listed in -eventwebhookhosts.
//
// It owns delivery only: what an event holds, and how it is rendered, is
// the Source's (the node backs it with the wallets and the renderer of
// listwalletevents). Each endpoint and wallet pair has its own goroutine,
// which waits on the wallet's change channel; a slow or dead endpoint
// holds back only its own deliveries, never the wallet, the chain
// follower or the RPC server.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/descwallet/descwallet/internal/safego"
)

// Header names of a delivery.
const (
	// SignatureHeader carries "sha256=" and the hex HMAC-SHA256 of the
	// body under the secret.
	SignatureHeader = "X-Descwallet-Signature"
	// CursorHeader carries the cursor of the last event of the body.
	CursorHeader = "X-Descwallet-Cursor"
)

// Defaults of the delivery.
const (
	DefaultBatch      = 100
	DefaultTimeout    = 10 * time.Second
	DefaultMinBackoff = 500 * time.Millisecond
	DefaultMaxBackoff = time.Minute
	DefaultRescan     = time.Second
	// maxReplyBody is how much of an endpoint's reply is read (and
	// dropped) to keep its connection reusable.
	maxReplyBody = 64 << 10
)

// Event is one event of a wallet's log.
type Event struct {
	// Cursor is its position in the wallet's log.
	Cursor int64
	// JSON is the event object as listwalletevents renders it.
	JSON []byte
}

// Source is what delivery needs of the node.
type Source interface {
	// Wallets returns the names of the loaded wallets.
	Wallets() []string
	// Read returns at most limit events of the wallet after the cursor,
	// in order, and a channel closed once the log may have grown after
	// the read began (or the wallet closed).
	Read(ctx context.Context, wallet string, after int64, limit int) ([]Event, <-chan struct{}, error)
	// Acked returns the last cursor the target acknowledged for the
	// wallet (0: none).
	Acked(ctx context.Context, wallet, target string) (int64, error)
	// Ack records durably that the target acknowledged the wallet's
	// events up to cursor.
	Ack(ctx context.Context, wallet, target string, cursor int64) error
}

// Config configures a Dispatcher.
type Config struct {
	// URLs are the endpoints, each checked with CheckURL.
	URLs []string
	// Hosts are the host names allowed besides loopback
	// (-eventwebhookhosts).
	Hosts []string
	// Secret keys the HMAC of each body; required. Never logged.
	Secret []byte
	// Source is the wallets' side.
	Source Source
	// Log receives delivery failures; nil discards them.
	Log *slog.Logger
	// Batch is the most events per POST; zero means DefaultBatch.
	Batch int
	// Timeout bounds one POST; zero means DefaultTimeout.
	Timeout time.Duration
	// MinBackoff and MaxBackoff bound the wait between tries of a failed
	// POST (doubling from the first to the second); zero means the
	// defaults.
	MinBackoff, MaxBackoff time.Duration
	// Rescan is how often the loaded wallets are listed to start the
	// deliveries of new ones; zero means DefaultRescan.
	Rescan time.Duration
}

// Dispatcher runs the deliveries.
type Dispatcher struct {
	cfg     Config
	targets []*url.URL
	client  *http.Client

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	running map[workerKey]bool
}

type workerKey struct{ target, wallet string }

// ErrURL is an -eventwebhook value that is refused.
var ErrURL = errors.New("invalid -eventwebhook")

// CheckURL parses an endpoint: http or https, a host, no credentials in
// the URL, and a loopback host (an address or "localhost") unless the host
// is one of hosts.
func CheckURL(raw string, hosts []string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return nil, fmt.Errorf("%w=%s: must be an http or https URL", ErrURL, raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: credentials in the URL are not allowed", ErrURL)
	}
	host := u.Hostname()
	if !loopbackHost(host) && !listed(host, hosts) {
		return nil, fmt.Errorf("%w=%s: host %s is not loopback and not in -eventwebhookhosts", ErrURL, raw, host)
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

func listed(host string, hosts []string) bool {
	for _, h := range hosts {
		if strings.EqualFold(strings.TrimSpace(h), host) {
			return true
		}
	}
	return false
}

// New checks the configuration and prepares the deliveries; Start runs
// them.
func New(cfg Config) (*Dispatcher, error) {
	if len(cfg.Secret) == 0 {
		return nil, errors.New("-eventwebhook needs -eventwebhooksecret")
	}
	if cfg.Source == nil {
		return nil, errors.New("webhook: no source")
	}
	d := &Dispatcher{cfg: cfg, running: map[workerKey]bool{}}
	seen := map[string]bool{}
	for _, raw := range cfg.URLs {
		u, err := CheckURL(raw, cfg.Hosts)
		if err != nil {
			return nil, err
		}
		if !seen[u.String()] {
			seen[u.String()] = true
			d.targets = append(d.targets, u)
		}
	}
	c := &d.cfg
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Batch <= 0 {
		c.Batch = DefaultBatch
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MinBackoff <= 0 {
		c.MinBackoff = DefaultMinBackoff
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = DefaultMaxBackoff
	}
	c.MaxBackoff = max(c.MaxBackoff, c.MinBackoff)
	if c.Rescan <= 0 {
		c.Rescan = DefaultRescan
	}
	d.client = newClient(cfg.Hosts, c.Timeout)
	d.ctx, d.cancel = context.WithCancel(context.Background())
	return d, nil
}

// newClient is the HTTP client of the deliveries: no proxy, no
// redirects, a timeout per POST, and a dialer that connects to hosts not
// listed in hosts only on loopback addresses (so that "localhost" cannot
// be made to resolve elsewhere).
func newClient(hosts []string, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			d := *dialer
			if !listed(host, hosts) {
				d.Control = func(_, address string, _ syscall.RawConn) error {
					ap, err := netip.ParseAddrPort(address)
					if err != nil || !ap.Addr().Unmap().IsLoopback() {
						return fmt.Errorf("webhook host %s resolved to %s, not loopback", host, address)
					}
					return nil
				}
			}
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Targets returns the endpoints as their acknowledged cursors are stored
// (Source.Ack's target); none for a nil Dispatcher.
func (d *Dispatcher) Targets() []string {
	if d == nil {
		return nil
	}
	out := make([]string, len(d.targets))
	for i, u := range d.targets {
		out[i] = u.String()
	}
	return out
}

// Start runs the deliveries: one goroutine per endpoint and loaded wallet,
// and one that starts those of wallets loaded later.
func (d *Dispatcher) Start() {
	if d == nil || len(d.targets) == 0 {
		return
	}
	d.wg.Add(1)
	safego.Go("webhook supervisor", func() error {
		defer d.wg.Done()
		tick := time.NewTicker(d.cfg.Rescan)
		defer tick.Stop()
		for {
			d.startWorkers()
			select {
			case <-tick.C:
			case <-d.ctx.Done():
				return nil
			}
		}
	})
}

// Stop ends the deliveries (a POST in flight is cancelled; its events are
// delivered again after the restart) and waits for them.
func (d *Dispatcher) Stop() {
	if d == nil {
		return
	}
	d.cancel()
	d.wg.Wait()
	d.client.CloseIdleConnections()
}

// startWorkers starts a delivery for each endpoint and loaded wallet that
// has none.
func (d *Dispatcher) startWorkers() {
	for _, name := range d.cfg.Source.Wallets() {
		for _, u := range d.targets {
			k := workerKey{u.String(), name}
			d.mu.Lock()
			if d.running[k] || d.ctx.Err() != nil {
				d.mu.Unlock()
				continue
			}
			d.running[k] = true
			d.wg.Add(1)
			d.mu.Unlock()
			safego.Go("webhook delivery", func() error {
				defer d.wg.Done()
				defer func() {
					d.mu.Lock()
					delete(d.running, k)
					d.mu.Unlock()
				}()
				d.deliver(u, name)
				return nil
			})
		}
	}
}

// loaded reports whether the wallet is loaded.
func (d *Dispatcher) loaded(name string) bool {
	for _, n := range d.cfg.Source.Wallets() {
		if n == name {
			return true
		}
	}
	return false
}

// deliver sends the wallet's events to one endpoint from its acknowledged
// cursor on, until the wallet is unloaded or the dispatcher stops.
func (d *Dispatcher) deliver(u *url.URL, wallet string) {
	target := u.String()
	log := d.cfg.Log.With("webhook", logURL(u), "wallet", wallet)
	ctx := d.ctx
	var cursor int64
	for fails := 0; ; fails++ {
		c, err := d.cfg.Source.Acked(ctx, wallet, target)
		if err == nil {
			cursor = c
			break
		}
		if !d.loaded(wallet) || !d.sleep(fails) {
			return
		}
	}
	for fails := 0; ; {
		evs, changed, err := d.cfg.Source.Read(ctx, wallet, cursor, d.cfg.Batch)
		if err != nil {
			if ctx.Err() != nil || !d.loaded(wallet) {
				return
			}
			log.Warn("webhook: reading the event log failed", "err", err)
			if !d.sleep(fails) {
				return
			}
			fails++
			continue
		}
		fails = 0
		if len(evs) == 0 {
			select {
			case <-changed:
				continue
			case <-ctx.Done():
				return
			}
		}
		body := d.body(wallet, evs)
		last := evs[len(evs)-1].Cursor
		if !d.post(ctx, u, body, last, log) {
			return
		}
		cursor = last
		if err := d.cfg.Source.Ack(ctx, wallet, target, cursor); err != nil && ctx.Err() == nil {
			// Delivered but not recorded: after a restart these events
			// go out again (at least once).
			log.Warn("webhook: recording the acknowledged cursor failed", "cursor", cursor, "err", err)
		}
	}
}

// body is the JSON posted: {"wallet": name, "events": [...]}.
func (d *Dispatcher) body(wallet string, evs []Event) []byte {
	name, _ := json.Marshal(wallet)
	b := make([]byte, 0, 64+len(evs)*256)
	b = append(b, `{"wallet":`...)
	b = append(b, name...)
	b = append(b, `,"events":[`...)
	for i, e := range evs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e.JSON...)
	}
	return append(b, "]}"...)
}

// Sign returns the signature header value of a body: "sha256=" and the hex
// HMAC-SHA256 of the body under the secret.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether header is the signature of body under secret,
// comparing in constant time (for receivers written in Go).
func Verify(secret, body []byte, header string) bool {
	return hmac.Equal([]byte(header), []byte(Sign(secret, body)))
}

// post sends one body until the endpoint answers 2xx; false when the
// dispatcher stopped first.
func (d *Dispatcher) post(ctx context.Context, u *url.URL, body []byte, last int64, log *slog.Logger) bool {
	sig := Sign(d.cfg.Secret, body)
	for fails := 0; ; fails++ {
		err := d.postOnce(ctx, u, body, sig, last)
		if err == nil {
			if fails > 0 {
				log.Info("webhook delivered after retries", "cursor", last, "tries", fails+1)
			}
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		log.Warn("webhook delivery failed; will retry", "cursor", last, "try", fails+1, "err", err)
		if !d.sleep(fails) {
			return false
		}
	}
}

func (d *Dispatcher) postOnce(ctx context.Context, u *url.URL, body []byte, sig string, last int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "descwallet-webhook")
	req.Header.Set(SignatureHeader, sig)
	req.Header.Set(CursorHeader, strconv.FormatInt(last, 10))
	resp, err := d.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the log line already
		}
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxReplyBody))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("HTTP status %d", resp.StatusCode)
	}
	return nil
}

// sleep waits the backoff after fails failures (doubling from MinBackoff
// up to MaxBackoff, with up to a quarter of random spread so that many
// deliveries do not retry in step); false when the dispatcher stopped.
func (d *Dispatcher) sleep(fails int) bool {
	wait := d.cfg.MinBackoff << min(fails, 30)
	if wait <= 0 || wait > d.cfg.MaxBackoff {
		wait = d.cfg.MaxBackoff
	}
	wait += time.Duration(rand.Int64N(int64(wait)/4 + 1))
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-d.ctx.Done():
		return false
	}
}

// logURL is an endpoint as logged: scheme, host and path, without the
// query (which may carry a token).
func logURL(u *url.URL) string {
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}
