package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
)

// addrInfoWallet is the wallet the addrinfo benchmark creates.
const addrInfoWallet = "w1k"

// runAddrInfo measures getaddressinfo of an address of a watch-only wallet
// holding wpkh(<tpub>/0/*) over [0, 999], and echo in the same run, on
// each store -store names.
func runAddrInfo(argv []string) error {
	fs := flag.NewFlagSet("addrinfo", flag.ExitOnError)
	conns := fs.Int("conns", 16, "keep-alive connections")
	dur := fs.Duration("duration", 10*time.Second, "measuring time per call")
	warm := fs.Duration("warmup", time.Second, "warm-up time per call (not counted)")
	daemonBin := fs.String("daemon", "", "descwalletd binary to start (default: next to this program, else $PATH)")
	threads := fs.Int("rpcthreads", 16, "-rpcthreads of the started node")
	store := fs.String("store", storeSQLite, "wallet store: sqlite, postgres or both (prints PostgreSQL / SQLite)")
	pgdsn := fs.String("pgdsn", "", "PostgreSQL database to use (default: a throwaway server started here)")
	shared := fs.Bool("pgshared", false, "run the PostgreSQL node with -walletdbshared (as several nodes on one database)")
	rounds := fs.Int("rounds", 1, "rounds of measurements, each store in turn in each (the median ratio is printed)")
	fs.Parse(argv)
	kinds, err := parseStores(*store)
	if err != nil {
		return err
	}
	if *rounds < 1 {
		return errors.New("-rounds must be at least 1")
	}

	st := &stores{dsn: *pgdsn, shared: *shared}
	defer st.close()
	// Every store's node is set up first, then measured in turn, so that
	// each round sees the machine in about the same state.
	type target struct {
		kind string
		d    *daemon
		body string
	}
	var targets []target
	for _, kind := range kinds {
		args, err := st.args(kind)
		if err != nil {
			return err
		}
		d, err := startDaemon(*daemonBin, *threads, args...)
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		defer d.stop()
		addr, err := setupAddrInfoWallet(d.addr, d.auth)
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		targets = append(targets, target{kind: kind, d: d,
			body: fmt.Sprintf(`{"jsonrpc":"1.0","id":1,"method":"getaddressinfo","params":[%q]}`, addr)})
	}
	fmt.Printf("getaddressinfo (index 500 of 1000 watched scripts) and echo over %d keep-alive connections, %v each\n",
		*conns, *dur)
	var all [][]storeRates
	for round := range *rounds {
		if *rounds > 1 {
			fmt.Printf("round %d\n", round+1)
		}
		var rates []storeRates
		for _, t := range targets {
			r := storeRates{store: t.kind}
			if r.info, err = measure(t.d.addr, "/wallet/"+addrInfoWallet, t.d.auth, t.body, *conns, *warm,
				*dur); err != nil {
				return fmt.Errorf("%s: getaddressinfo: %w", t.kind, err)
			}
			if r.echo, err = measure(t.d.addr, "/", t.d.auth, `{"jsonrpc":"1.0","id":1,"method":"echo","params":[]}`,
				*conns, *warm, *dur); err != nil {
				return fmt.Errorf("%s: echo: %w", t.kind, err)
			}
			rates = append(rates, r)
		}
		printStoreRates(os.Stdout, rates)
		all = append(all, rates)
	}
	if len(all) > 1 {
		printMedianRatio(os.Stdout, all)
	}
	return nil
}

// setupAddrInfoWallet creates the watch-only wallet, imports the range and
// returns the address at index 500, checking that the wallet owns it.
func setupAddrInfoWallet(addr, auth string) (string, error) {
	seed := bytes.Repeat([]byte{0x42}, 32)
	master, err := hdkeychain.NewMaster(seed, &chaincfg.RegressionNetParams)
	if err != nil {
		return "", err
	}
	tpub, err := master.Neuter()
	if err != nil {
		return "", err
	}
	var info struct {
		Descriptor string `json:"descriptor"`
	}
	if err := call(addr, "/", auth, "getdescriptorinfo", []any{"wpkh(" + tpub.String() + "/0/*)"}, &info); err != nil {
		return "", err
	}
	if err := call(addr, "/", auth, "createwallet", []any{addrInfoWallet, true, true}, nil); err != nil {
		return "", err
	}
	var results []struct {
		Success bool `json:"success"`
	}
	req := []any{[]any{map[string]any{"desc": info.Descriptor, "timestamp": "now", "range": []int{0, 999}}}}
	if err := call(addr, "/wallet/"+addrInfoWallet, auth, "importdescriptors", req, &results); err != nil {
		return "", err
	}
	if len(results) != 1 || !results[0].Success {
		return "", errors.New("importdescriptors did not succeed")
	}
	var addrs []string
	if err := call(addr, "/", auth, "deriveaddresses", []any{info.Descriptor, []int{500, 500}}, &addrs); err != nil {
		return "", err
	}
	var mine struct {
		IsMine bool `json:"ismine"`
	}
	if err := call(addr, "/wallet/"+addrInfoWallet, auth, "getaddressinfo", []any{addrs[0]}, &mine); err != nil {
		return "", err
	}
	if !mine.IsMine {
		return "", errors.New("the benchmark address is not the wallet's")
	}
	return addrs[0], nil
}

// call makes one JSON-RPC call and decodes its result into out (if not nil).
func call(addr, path, auth, method string, params []any, out any) error {
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "1.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", auth)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return err
	}
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &reply); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if reply.Error != nil {
		return fmt.Errorf("%s: error %d: %s", method, reply.Error.Code, reply.Error.Message)
	}
	if out != nil {
		return json.Unmarshal(reply.Result, out)
	}
	return nil
}
