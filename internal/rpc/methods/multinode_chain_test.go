package methods

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/pgtest"
	"github.com/descwallet/descwallet/internal/testenv"
)

// multiNodeAddresses is how many getnewaddress calls the two-node test
// makes: MULTINODE_ADDRESSES when set (make soak sets 10 000), else a
// count that keeps CI short.
func multiNodeAddresses(t *testing.T) int {
	if v := os.Getenv("MULTINODE_ADDRESSES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("MULTINODE_ADDRESSES=%q", v)
		}
		return n
	}
	return 500
}

// TestMultiNodeSharedWallet runs two daemons with -walletdbshared on one
// btcd and one PostgreSQL database serving the same wallet: getnewaddress
// calls from 64 concurrent clients spread over both nodes give distinct
// addresses, every one of them the wallet's on both nodes with its label,
// and an importdescriptors on one node is answered by getaddressinfo on
// the other at once.
func TestMultiNodeSharedWallet(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd, PostgreSQL and two daemons")
	}
	t.Parallel()
	dsn := pgtest.DSN(t)
	b := testenv.StartBtcd(t, nil)
	args := btcdArgs(b, "-walletdb="+dsn, "-walletdbshared", "-chainpoll=200")
	na := testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: t.TempDir(), Args: args})
	nb := testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: t.TempDir(), Args: args})
	call := func(c *testenv.Client, out any, method string, params ...any) {
		t.Helper()
		if err := c.CallResult(out, method, params...); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	var ignore json.RawMessage
	call(na.Client, &ignore, "createwallet", "shop")
	call(nb.Client, &ignore, "loadwallet", "shop")
	clients := []*testenv.Client{
		{URL: na.URL + "wallet/shop", User: na.User, Pass: na.Pass},
		{URL: nb.URL + "wallet/shop", User: nb.User, Pass: nb.Pass},
	}

	total := multiNodeAddresses(t)
	const workers = 64
	var mu sync.Mutex
	seen := make(map[string]int, total)
	byNode := [2][]string{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < total; i += workers {
				node := i % 2
				var addr string
				if err := clients[node].CallResult(&addr, "getnewaddress", "deposit"); err != nil {
					errs <- fmt.Errorf("getnewaddress %d on node %d: %w", i, node, err)
					return
				}
				mu.Lock()
				seen[addr]++
				byNode[node] = append(byNode[node], addr)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != total {
		t.Fatalf("%d distinct addresses of %d getnewaddress calls", len(seen), total)
	}
	// An address one node gave is the wallet's on the other, with its
	// label (a sample of each node's).
	var info struct {
		IsMine bool     `json:"ismine"`
		Labels []string `json:"labels"`
	}
	for node := range 2 {
		for i := 0; i < len(byNode[node]); i += len(byNode[node])/20 + 1 {
			call(clients[1-node], &info, "getaddressinfo", byNode[node][i])
			if !info.IsMine || fmt.Sprint(info.Labels) != "[deposit]" {
				t.Fatalf("node %d's address %s on the other node: %+v", node, byNode[node][i], info)
			}
		}
	}

	// An import on one node is answered by getaddressinfo on the other
	// at once.
	const tprv = "tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK"
	desc := descriptor.AddChecksum("wpkh(" + tprv + "/7/*)")
	var derived []string
	call(na.Client, &derived, "deriveaddresses", desc, []int{4, 4})
	if len(derived) != 1 {
		t.Fatalf("deriveaddresses %v", derived)
	}
	call(clients[1], &info, "getaddressinfo", derived[0])
	if info.IsMine {
		t.Fatalf("owned before the import: %+v", info)
	}
	var res []struct {
		Success bool `json:"success"`
	}
	call(clients[0], &res, "importdescriptors", []map[string]any{{"desc": desc, "timestamp": "now", "range": []int{0, 9}}})
	if len(res) != 1 || !res[0].Success {
		t.Fatalf("importdescriptors %+v", res)
	}
	call(clients[1], &info, "getaddressinfo", derived[0])
	if !info.IsMine {
		t.Fatalf("an import on one node is not seen by getaddressinfo on the other: %+v", info)
	}
}
