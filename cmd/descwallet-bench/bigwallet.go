package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/safego"
	"github.com/descwallet/descwallet/internal/testenv"
)

// bigWalletName is the wallet the bigwallet benchmark creates.
const bigWalletName = "big"

// bigWalletArgs are the bigwallet subcommand's settings.
type bigWalletArgs struct {
	scripts, blocks, txs, walletEvery int
	addrs, conns, fetchConns, threads int
	dur, warm                         time.Duration
	store, pgdsn, daemon, btcd, cache string
	pgShared                          bool
}

// parseBigWalletArgs reads the bigwallet subcommand's flags.
func parseBigWalletArgs(argv []string) (bigWalletArgs, error) {
	var a bigWalletArgs
	fs := flag.NewFlagSet("bigwallet", flag.ContinueOnError)
	fs.IntVar(&a.scripts, "scripts", 1_000_000, "size N of the imported range [0, N-1]")
	fs.IntVar(&a.blocks, "blocks", 5000, "benchmark blocks to rescan (0: import and getaddressinfo only, no chain)")
	fs.IntVar(&a.txs, "txs", 20, "transactions per benchmark block")
	fs.IntVar(&a.walletEvery, "walletevery", 10, "one payment in this many pays the wallet")
	fs.IntVar(&a.addrs, "addrs", 1000, "random addresses of the range getaddressinfo asks about")
	fs.IntVar(&a.conns, "conns", 16, "keep-alive connections of the getaddressinfo load")
	fs.IntVar(&a.fetchConns, "fetchconns", 4, "batches in flight of the raw fetch (the node's chain client keeps 4)")
	fs.IntVar(&a.threads, "rpcthreads", 16, "-rpcthreads of the started node")
	fs.DurationVar(&a.dur, "duration", 10*time.Second, "measuring time per call")
	fs.DurationVar(&a.warm, "warmup", time.Second, "warm-up time per call (not counted)")
	fs.StringVar(&a.store, "store", storeSQLite, "wallet store: sqlite or postgres")
	fs.StringVar(&a.pgdsn, "pgdsn", "", "PostgreSQL database to use (default: a throwaway server started here)")
	fs.BoolVar(&a.pgShared, "pgshared", false, "run the PostgreSQL node with -walletdbshared")
	fs.StringVar(&a.daemon, "daemon", "", "descwalletd binary to start (default: next to this program, else $PATH)")
	fs.StringVar(&a.btcd, "btcd", "", "btcd binary (default: the pinned btcd the tests build)")
	fs.StringVar(&a.cache, "cache", filepath.Join(testenv.RepoRoot(), ".cache", "bench"),
		"folder keeping built chains between runs")
	if err := fs.Parse(argv); err != nil {
		return a, err
	}
	if fs.NArg() != 0 {
		return a, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case a.scripts < 1 || a.scripts > 1<<31-1:
		return a, errors.New("-scripts must be in [1, 2^31-1]")
	case a.blocks < 0:
		return a, errors.New("-blocks must not be negative")
	case a.addrs < 1, a.conns < 1, a.fetchConns < 1, a.threads < 1:
		return a, errors.New("-addrs, -conns, -fetchconns and -rpcthreads must be at least 1")
	}
	kinds, err := parseStores(a.store)
	if err != nil {
		return a, err
	}
	if len(kinds) != 1 {
		return a, errors.New("-store must be sqlite or postgres (one wallet per run)")
	}
	a.store = kinds[0]
	if a.blocks > 0 {
		if a.scripts < chainPayRange {
			return a, fmt.Errorf("-scripts must be at least %d with a chain (its payments go to the first %d indices)",
				chainPayRange, chainPayRange)
		}
		if err := a.spec().check(); err != nil {
			return a, err
		}
		if _, _, err := a.spec().fundingPlan(); err != nil {
			return a, err
		}
	}
	return a, nil
}

// spec is the chain the settings ask for.
func (a bigWalletArgs) spec() chainSpec {
	return chainSpec{Version: chainVersion, Blocks: a.blocks, TxsPerBlock: a.txs, WalletEvery: a.walletEvery}
}

// bigWalletKey is the public half of the wallet's HD key, m/0 of a fixed
// seed: its children are the wallet's scripts.
func bigWalletKey() (*hdkeychain.ExtendedKey, error) {
	master, err := hdkeychain.NewMaster(bytes.Repeat([]byte{0x51}, 32), &chaincfg.RegressionNetParams)
	if err != nil {
		return nil, err
	}
	pub, err := master.Neuter()
	if err != nil {
		return nil, err
	}
	return pub, nil
}

// maxRange is the most indices one importdescriptors range may hold
// (Core's "Range is too large" past it).
const maxRange = 1_000_000

// rangePart is one descriptor of the wallet, wpkh(<tpub>/branch/*) over
// [0, size-1].
type rangePart struct {
	branch uint32
	size   int
}

// rangeParts lays n scripts out over as few descriptors as the range
// limit allows: wpkh(<tpub>/0/*), /1/*, ..., each full but the last.
func rangeParts(n int) []rangePart {
	var parts []rangePart
	for b := 0; n > 0; b++ {
		size := min(n, maxRange)
		parts = append(parts, rangePart{branch: uint32(b), size: size})
		n -= size
	}
	return parts
}

// scriptAt returns the branch and index of the wallet's i-th script in
// rangeParts' layout.
func scriptAt(i int) (branch, index uint32) {
	return uint32(i / maxRange), uint32(i % maxRange)
}

// walletOutput returns the P2WPKH script and address at index i of
// wpkh(parent/0/*).
func walletOutput(branch *hdkeychain.ExtendedKey, i uint32) ([]byte, string, error) {
	child, err := branch.Derive(i)
	if err != nil {
		return nil, "", err
	}
	pub, err := child.ECPubKey()
	if err != nil {
		return nil, "", err
	}
	a, err := address.NewAddressWitnessPubKeyHash(address.Hash160(pub.SerializeCompressed()),
		&chaincfg.RegressionNetParams)
	if err != nil {
		return nil, "", err
	}
	script := append([]byte{0x00, 0x14}, a.WitnessProgram()...)
	return script, a.EncodeAddress(), nil
}

// runBigWallet measures one watch-only wallet holding one ranged
// descriptor over [0, N-1]: the import (time, the node's peak RSS),
// getaddressinfo on random addresses of the range beside echo, and a
// rescan of the benchmark blocks against the raw fetch of the same
// blocks.
func runBigWallet(argv []string) error {
	a, err := parseBigWalletArgs(argv)
	if err != nil {
		return err
	}
	parent, err := bigWalletKey()
	if err != nil {
		return err
	}
	branch, err := parent.Derive(0)
	if err != nil {
		return err
	}
	walletScript := func(i uint32) ([]byte, error) {
		s, _, err := walletOutput(branch, i)
		return s, err
	}

	// The chain first, so that the wallet is born at its tip.
	var (
		blocks [][]byte
		info   chainInfo
		node   *btcdNode
	)
	var daemonArgs []string
	if a.blocks > 0 {
		if blocks, info, err = loadChain(a.cache, a.btcd, a.spec(), walletScript); err != nil {
			return fmt.Errorf("chain: %w", err)
		}
		if node, err = startBtcd(a.btcd, benchMiner().WPKH.Address); err != nil {
			return err
		}
		defer node.stop()
		t0 := time.Now()
		if err := replayChain(node, blocks, info); err != nil {
			return err
		}
		fmt.Printf("chain: %d blocks submitted to a fresh btcd in %v; benchmark blocks %d-%d, %d pay the wallet\n",
			len(blocks), time.Since(t0).Round(time.Millisecond), info.First, info.Tip, info.WalletTxs)
		daemonArgs = node.daemonArgs()
	}

	st := &stores{dsn: a.pgdsn, shared: a.pgShared}
	defer st.close()
	storeArgs, err := st.args(a.store)
	if err != nil {
		return err
	}
	d, err := startDaemon(a.daemon, a.threads, append(daemonArgs, storeArgs...)...)
	if err != nil {
		return err
	}
	defer d.stop()
	wallet := "/wallet/" + bigWalletName

	// The import: one element per descriptor of the layout, in one call.
	parts := rangeParts(a.scripts)
	elems := make([]any, len(parts))
	var first string
	for i, p := range parts {
		var desc struct {
			Descriptor string `json:"descriptor"`
		}
		if err := call(d.addr, "/", d.auth, "getdescriptorinfo",
			[]any{fmt.Sprintf("wpkh(%s/%d/*)", parent.String(), p.branch)}, &desc); err != nil {
			return err
		}
		if i == 0 {
			first = desc.Descriptor
		}
		elems[i] = map[string]any{"desc": desc.Descriptor, "timestamp": "now", "range": []int{0, p.size - 1}}
	}
	if err := call(d.addr, "/", d.auth, "createwallet", []any{bigWalletName, true, true}, nil); err != nil {
		return err
	}
	rssBefore, err := peakRSS(d.pid)
	if err != nil {
		return err
	}
	if len(parts) == 1 {
		fmt.Printf("importdescriptors %s over [0, %d] (timestamp now) on %s\n", first, a.scripts-1, a.store)
	} else {
		fmt.Printf("importdescriptors of %d descriptors wpkh(<tpub>/b/*), b = 0..%d, over [0, %d] each (a single "+
			"range is at most %d indices, as in Core), %d scripts in all (timestamp now) on %s\n", len(parts),
			len(parts)-1, maxRange-1, maxRange, a.scripts, a.store)
	}
	var results []struct {
		Success bool            `json:"success"`
		Error   json.RawMessage `json:"error"`
	}
	t0 := time.Now()
	if err := call(d.addr, wallet, d.auth, "importdescriptors", []any{elems}, &results); err != nil {
		return err
	}
	importTime := time.Since(t0)
	if len(results) != len(parts) {
		return fmt.Errorf("importdescriptors answered %d results for %d descriptors", len(results), len(parts))
	}
	for i, r := range results {
		if !r.Success {
			return fmt.Errorf("importdescriptors of descriptor %d did not succeed: %s", i, r.Error)
		}
	}
	rssImport, err := peakRSS(d.pid)
	if err != nil {
		return err
	}
	fmt.Printf("import            %10.1f s   node peak RSS %s (%s before the import)\n", importTime.Seconds(),
		mib(rssImport), mib(rssBefore))

	// getaddressinfo on random addresses of the wallet, after checking
	// the ends of its ranges and the indices past them.
	branches := make([]*hdkeychain.ExtendedKey, len(parts)+1)
	for b := range branches {
		if branches[b], err = parent.Derive(uint32(b)); err != nil {
			return err
		}
	}
	last := parts[len(parts)-1]
	for _, probe := range []struct {
		branch, index uint32
		mine          bool
	}{
		{0, 0, true},
		{last.branch, uint32(last.size - 1), true},
		{last.branch, uint32(last.size), false},
		{last.branch + 1, 0, false},
	} {
		_, addr, err := walletOutput(branches[probe.branch], probe.index)
		if err != nil {
			return err
		}
		var got struct {
			IsMine bool `json:"ismine"`
		}
		if err := call(d.addr, wallet, d.auth, "getaddressinfo", []any{addr}, &got); err != nil {
			return err
		}
		if got.IsMine != probe.mine {
			return fmt.Errorf("getaddressinfo of /%d/%d: ismine %v, want %v", probe.branch, probe.index, got.IsMine,
				probe.mine)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(a.scripts), 7))
	bodies := make([]string, a.addrs)
	for i := range bodies {
		b, idx := scriptAt(rng.IntN(a.scripts))
		_, addr, err := walletOutput(branches[b], idx)
		if err != nil {
			return err
		}
		bodies[i] = fmt.Sprintf(`{"jsonrpc":"1.0","id":1,"method":"getaddressinfo","params":[%q]}`, addr)
	}
	fmt.Printf("getaddressinfo on %d random addresses of the range and echo, %d keep-alive connections, %v each\n",
		a.addrs, a.conns, a.dur)
	info1, err := measureBodies(d.addr, wallet, d.auth, bodies, a.conns, a.warm, a.dur)
	if err != nil {
		return fmt.Errorf("getaddressinfo: %w", err)
	}
	echo, err := measure(d.addr, "/", d.auth, `{"jsonrpc":"1.0","id":1,"method":"echo","params":[]}`,
		a.conns, a.warm, a.dur)
	if err != nil {
		return fmt.Errorf("echo: %w", err)
	}
	fmt.Printf("getaddressinfo    %10.0f req/s   echo %10.0f req/s   getaddressinfo / echo %s\n", info1, echo,
		ratio(info1, echo))

	if a.blocks > 0 {
		if err := rescanAgainstFetch(a, d, node, info); err != nil {
			return err
		}
	}
	rssEnd, err := peakRSS(d.pid)
	if err != nil {
		return err
	}
	fmt.Printf("node peak RSS     %s\n", mib(rssEnd))
	return nil
}

// rescanAgainstFetch times rescanblockchain over the benchmark blocks
// between two raw fetches of the same blocks, checks the wallet found
// every payment, and prints the rescan's time over the faster fetch's.
func rescanAgainstFetch(a bigWalletArgs, d *daemon, node *btcdNode, info chainInfo) error {
	n := info.Tip - info.First + 1
	fetch1, err := rawFetch(node, info.First, info.Tip, a.fetchConns)
	if err != nil {
		return fmt.Errorf("raw fetch: %w", err)
	}
	var res struct {
		Start int64 `json:"start_height"`
		Stop  int64 `json:"stop_height"`
	}
	t0 := time.Now()
	// getwalletinfo is polled meanwhile for the rescan's first progress;
	// first is read after the poller ended.
	var first time.Duration
	stopPoll := make(chan struct{})
	polled := safego.Go("rescan progress", func() error {
		for {
			select {
			case <-stopPoll:
				return nil
			case <-time.After(200 * time.Millisecond):
			}
			var wi struct {
				Scanning json.RawMessage `json:"scanning"`
			}
			if call(d.addr, "/wallet/"+bigWalletName, d.auth, "getwalletinfo", nil, &wi) != nil {
				continue
			}
			if p, ok := scanProgress(wi.Scanning); ok && p > 0 {
				first = time.Since(t0)
				return nil
			}
		}
	})
	err = call(d.addr, "/wallet/"+bigWalletName, d.auth, "rescanblockchain", []any{info.First, info.Tip}, &res)
	rescan := time.Since(t0)
	close(stopPoll)
	<-polled
	if err != nil {
		return fmt.Errorf("rescanblockchain: %w", err)
	}
	if res.Start != info.First || res.Stop != info.Tip {
		return fmt.Errorf("rescanblockchain scanned %d-%d, want %d-%d", res.Start, res.Stop, info.First, info.Tip)
	}
	fetch2, err := rawFetch(node, info.First, info.Tip, a.fetchConns)
	if err != nil {
		return fmt.Errorf("raw fetch: %w", err)
	}
	var wi struct {
		TxCount int `json:"txcount"`
	}
	if err := call(d.addr, "/wallet/"+bigWalletName, d.auth, "getwalletinfo", nil, &wi); err != nil {
		return err
	}
	if wi.TxCount != info.WalletTxs {
		return fmt.Errorf("the rescan found %d transactions, the chain has %d paying the wallet", wi.TxCount,
			info.WalletTxs)
	}
	fmt.Print(rescanReport(n, rescan, first, fetch1, fetch2, wi.TxCount))
	return nil
}

// scanProgress reads getwalletinfo's scanning field: false, or an object
// with the progress made.
func scanProgress(raw json.RawMessage) (float64, bool) {
	var p struct {
		Progress *float64 `json:"progress"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &p) != nil || p.Progress == nil {
		return 0, false
	}
	return *p.Progress, true
}

// rescanReport formats the rescan's figures: blocks per second of the
// rescan and of both fetches, the time until the rescan first showed
// progress (its preparation: the watch list and its index; 0 when not
// seen), and the rescan's time over the faster fetch.
func rescanReport(blocks int64, rescan, first, fetch1, fetch2 time.Duration, found int) string {
	fetch := min(fetch1, fetch2)
	rate := func(d time.Duration) string {
		if d <= 0 {
			return "n/a"
		}
		return strconv.FormatFloat(float64(blocks)/d.Seconds(), 'f', 0, 64) + " blocks/s"
	}
	return fmt.Sprintf("rescanblockchain  %10.2f s   %s (%d wallet transactions found)\n", rescan.Seconds(), rate(rescan),
		found) +
		firstLine(first) +
		fmt.Sprintf("raw fetch        %6.2f s / %.2f s   %s (getblockhash and getblock 0 of each block, before / after)\n",
			fetch1.Seconds(), fetch2.Seconds(), rate(fetch)) +
		fmt.Sprintf("rescan / raw fetch %s (over the faster fetch)\n", ratio(rescan.Seconds(), fetch.Seconds()))
}

// rawFetch fetches the hash and the raw block of every height of [from,
// to] from btcd as the node's chain client does (JSON-RPC batches of 500
// hashes and of 16 blocks, conns batches in flight, each block decoded
// from hex) and returns the time it took.
func rawFetch(node *btcdNode, from, to int64, conns int) (time.Duration, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
	defer client.CloseIdleConnections()
	t0 := time.Now()
	var hashCalls [][]batchCall
	for lo := from; lo <= to; lo += 500 {
		var calls []batchCall
		for h := lo; h <= min(to, lo+499); h++ {
			calls = append(calls, batchCall{Method: "getblockhash", Params: []any{h}})
		}
		hashCalls = append(hashCalls, calls)
	}
	hashReplies, err := inParallel(client, node, hashCalls, conns, nil)
	if err != nil {
		return 0, err
	}
	var blockCalls [][]batchCall
	var calls []batchCall
	for _, replies := range hashReplies {
		for _, r := range replies {
			var hash string
			if err := json.Unmarshal(r, &hash); err != nil {
				return 0, err
			}
			calls = append(calls, batchCall{Method: "getblock", Params: []any{hash, 0}})
			if len(calls) == 16 {
				blockCalls, calls = append(blockCalls, calls), nil
			}
		}
	}
	if len(calls) > 0 {
		blockCalls = append(blockCalls, calls)
	}
	var bytesRead atomic.Int64
	if _, err := inParallel(client, node, blockCalls, conns, func(replies []json.RawMessage) error {
		for _, r := range replies {
			var rawHex string
			if err := json.Unmarshal(r, &rawHex); err != nil {
				return err
			}
			raw, err := hex.DecodeString(rawHex)
			if err != nil {
				return err
			}
			bytesRead.Add(int64(len(raw)))
		}
		return nil
	}); err != nil {
		return 0, err
	}
	elapsed := time.Since(t0)
	if bytesRead.Load() == 0 {
		return 0, errors.New("no block fetched")
	}
	return elapsed, nil
}

// inParallel sends each batch of calls to btcd, conns at a time, and
// returns their results in order; each, when not nil, is run on each
// batch's results as they come, by the goroutine that fetched them.
func inParallel(client *http.Client, node *btcdNode, batches [][]batchCall, conns int,
	each func([]json.RawMessage) error) ([][]json.RawMessage, error) {
	out := make([][]json.RawMessage, len(batches))
	next := make(chan int, len(batches))
	for i := range batches {
		next <- i
	}
	close(next)
	var g safego.Group
	for range min(conns, len(batches)) {
		g.Go("raw fetch", func() error {
			for i := range next {
				r, err := batch(client, node.addr, node.auth, batches[i])
				if err != nil {
					return err
				}
				if each != nil {
					if err := each(r); err != nil {
						return err
					}
				}
				out[i] = r
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// firstLine describes when the rescan first showed progress.
func firstLine(first time.Duration) string {
	if first <= 0 {
		return "                  (no progress seen before the end)\n"
	}
	return fmt.Sprintf("                  first progress after %.2f s (the watch list and its index, and the first blocks)\n",
		first.Seconds())
}
