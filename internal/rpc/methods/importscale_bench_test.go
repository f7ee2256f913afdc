package methods

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/pgtest"
	"github.com/descwallet/descwallet/internal/testenv"
)

// procKB reads a field of /proc/<pid>/status in kB (VmHWM: peak resident
// set, VmRSS: resident set now).
func procKB(tb testing.TB, pid int, field string) int64 {
	tb.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return v
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// BenchmarkImportScale imports N scripts (IMPORT_SCALE, 100 000 by
// default; IMPORT_SCALE_STORES=sqlite or postgres for one store) as
// wpkh(tpub/b/*) over [0, 999 999] for b = 0, 1, ... (Core refuses a range
// of more than a million indexes), the last part shorter, in one
// importdescriptors call, into a watch-only wallet of a descwalletd process on
// each store, and reports the import's wall time, the process's peak
// resident set (VmHWM) over the import, the time to load the wallet after
// a restart and the process's resident set with it loaded, then
// getaddressinfo calls a second on random addresses of the range (one
// client, sequential: the store's lookup, not the server's concurrency).
// With IMPORT_SCALE_CHAIN=1 the nodes follow a btcd, and after the restart
// the resident set is read again once the follower has processed a new
// block for the wallet (its watch list loaded). Run with -benchtime=1x.
func BenchmarkImportScale(b *testing.B) {
	n := 100_000
	if s := os.Getenv("IMPORT_SCALE"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			b.Fatalf("IMPORT_SCALE=%q", s)
		}
		n = v
	}
	stores := corpusStores
	if s := os.Getenv("IMPORT_SCALE_STORES"); s != "" {
		stores = strings.Split(s, ",")
	}
	const part = 1_000_000
	var descs []*descriptor.Descriptor
	var req []any
	for lo := 0; lo < n; lo += part {
		desc := descriptor.AddChecksum(fmt.Sprintf("wpkh(%s/%d/*)", hugeTPub, lo/part))
		d, err := descriptor.Parse(desc, &chaincfg.RegressionNetParams)
		if err != nil {
			b.Fatal(err)
		}
		descs = append(descs, d)
		req = append(req, map[string]any{"desc": desc, "timestamp": "now", "active": lo == 0,
			"range": []int{0, min(n-lo, part) - 1}})
	}
	caches := make([]*descriptor.Cache, len(descs))
	for i := range caches {
		caches[i] = descriptor.NewCache()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var addrs []string
	for range 2000 {
		i := rng.IntN(n)
		outs, err := descs[i/part].Expand(uint32(i%part), caches[i/part])
		if err != nil {
			b.Fatal(err)
		}
		a, _ := address.Encode(outs[0].ScriptPubKey, &chaincfg.RegressionNetParams)
		addrs = append(addrs, a)
	}
	long := &http.Client{Timeout: 24 * time.Hour}
	for _, kind := range stores {
		b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
			for range b.N {
				args := []string{"-keypool=1000"}
				var btcd *testenv.Btcd
				if os.Getenv("IMPORT_SCALE_CHAIN") == "1" {
					btcd = testenv.StartBtcd(b, nil)
					btcd.Generate(1)
					args = append(args, "-chainbackend=btcd", "-chainrpcconnect="+btcd.RPCAddr,
						"-chainrpcuser="+btcd.User, "-chainrpcpassword="+btcd.Pass, "-chainpoll=200")
				}
				if kind == "postgres" {
					args = append(args, "-walletdb="+pgtest.DSN(b))
				}
				dataDir := b.TempDir()
				opts := &testenv.DaemonOptions{DataDir: dataDir, Args: args}
				node := testenv.StartDaemon(b, opts)
				c := &testenv.Client{URL: node.URL, User: node.User, Pass: node.Pass, HTTP: long}
				var ignore json.RawMessage
				if err := c.CallResult(&ignore, "createwallet", "w", true, true); err != nil {
					b.Fatal(err)
				}
				idle := procKB(b, node.Pid(), "VmRSS")
				wc := testenv.Client{URL: node.URL + "wallet/w", User: c.User, Pass: c.Pass, HTTP: long}
				t0 := time.Now()
				var res []struct {
					Success bool `json:"success"`
				}
				if err := wc.CallResult(&res, "importdescriptors", req); err != nil || len(res) != len(req) {
					b.Fatalf("import: %v %+v", err, res)
				}
				for _, r := range res {
					if !r.Success {
						b.Fatalf("import: %+v", res)
					}
				}
				took := time.Since(t0)
				peak := procKB(b, node.Pid(), "VmHWM")
				if err := node.Stop(); err != nil {
					b.Fatal(err)
				}

				node2 := testenv.StartDaemon(b, opts)
				c2 := &testenv.Client{URL: node2.URL, User: node2.User, Pass: node2.Pass, HTTP: long}
				t1 := time.Now()
				if err := c2.CallResult(&ignore, "loadwallet", "w"); err != nil {
					b.Fatal(err)
				}
				loadTook := time.Since(t1)
				loaded := procKB(b, node2.Pid(), "VmRSS")
				loadPeak := procKB(b, node2.Pid(), "VmHWM")
				wc2 := testenv.Client{URL: node2.URL + "wallet/w", User: c.User, Pass: c.Pass, HTTP: long}
				t2 := time.Now()
				for _, a := range addrs {
					var info struct {
						IsMine      bool `json:"ismine"`
						IsWatchOnly bool `json:"iswatchonly"`
					}
					if err := wc2.CallResult(&info, "getaddressinfo", a); err != nil {
						b.Fatal(err)
					}
					if !info.IsMine && !info.IsWatchOnly {
						b.Fatalf("%s of the range is not the wallet's", a)
					}
				}
				rate := float64(len(addrs)) / time.Since(t2).Seconds()
				if btcd != nil {
					btcd.Generate(1)
					want := btcd.GetBlockCount()
					t3 := time.Now()
					for {
						var bal struct {
							Last struct {
								Height int64 `json:"height"`
							} `json:"lastprocessedblock"`
						}
						if err := wc2.CallResult(&bal, "getbalances"); err != nil {
							b.Fatal(err)
						}
						if bal.Last.Height >= want {
							break
						}
						time.Sleep(200 * time.Millisecond)
					}
					following := procKB(b, node2.Pid(), "VmRSS")
					b.ReportMetric(time.Since(t3).Seconds(), "follow-s")
					b.ReportMetric(float64(following)/1024, "following-RSS-MB")
					b.ReportMetric(float64(following-idle)*1024/float64(n), "following-B/script")
					b.Logf("%s, %d scripts, following the chain: block processed after %v, RSS %d MB (peak %d MB)", kind, n,
						time.Since(t3).Round(time.Millisecond), following/1024, procKB(b, node2.Pid(), "VmHWM")/1024)
				}
				node2.Stop()

				b.ReportMetric(took.Seconds(), "import-s")
				b.ReportMetric(float64(peak)/1024, "import-peak-MB")
				b.ReportMetric(loadTook.Seconds(), "load-s")
				b.ReportMetric(float64(loaded)/1024, "loaded-RSS-MB")
				b.ReportMetric(float64(loadPeak)/1024, "load-peak-MB")
				b.ReportMetric(float64(loaded-idle)*1024/float64(n), "loaded-B/script")
				b.ReportMetric(rate, "addrinfo/s")
				b.Logf("%s, %d scripts: import %v (peak RSS %d MB, idle %d MB); after restart load %v, RSS %d MB (peak %d MB); getaddressinfo %.0f/s sequential",
					kind, n, took.Round(time.Millisecond), peak/1024, idle/1024, loadTook.Round(time.Millisecond),
					loaded/1024, loadPeak/1024, rate)
			}
		})
	}
}
