package wallettest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// crashTPub is the account key the crash test derives from.
const crashTPub = "tpubD6NzVbkrYhZ4XGZMHMtmeMYqg1jJpWcdPvmiNqS38SUJRBVM8K3xtzDDraCyg6yJbBwvSANbnTWNBafogsvhZA3tDd9uqf5ZcTZK3xezHdV"

const (
	crashBatch    = 20  // elements per importdescriptors call
	crashRangeEnd = 199 // each element imports [0, crashRangeEnd]
)

func crashDescriptor(i int) string {
	return descriptor.AddChecksum(fmt.Sprintf("wpkh(%s/%d/*)", crashTPub, i))
}

func crashAddress(t *testing.T, i int, index uint32) string {
	t.Helper()
	d, err := descriptor.Parse(crashDescriptor(i), &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := d.Expand(index, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := address.Encode(outs[0].ScriptPubKey, &chaincfg.RegressionNetParams)
	return a
}

// TestImportSurvivesKill imports descriptors in consecutive calls of many
// elements, kills the node with SIGKILL in the middle of a call, and
// restarts it on the same data dir: the wallet loads, every element of
// every call that returned success is there with its whole range, and
// every element of the interrupted call is either wholly there or absent.
func TestImportSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd twice")
	}
	dataDir := t.TempDir()
	opts := &testenv.DaemonOptions{DataDir: dataDir, Args: []string{"-keypool=1"}}
	d := testenv.StartDaemon(t, opts)
	if _, err := d.Call("createwallet", "w", true, true); err != nil {
		t.Fatal(err)
	}
	w := &testenv.Client{URL: d.URL + "wallet/w", User: "u", Pass: "p"}

	var (
		mu        sync.Mutex
		confirmed = map[int]bool{} // elements whose call returned success
		attempted int              // elements sent so far
		callErr   error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for batch := 0; ; batch++ {
			var reqs []map[string]any
			for j := 0; j < crashBatch; j++ {
				reqs = append(reqs, map[string]any{"desc": crashDescriptor(batch*crashBatch + j),
					"timestamp": 1700000000, "range": []int{0, crashRangeEnd}})
			}
			mu.Lock()
			attempted = (batch + 1) * crashBatch
			mu.Unlock()
			var res []struct {
				Success bool `json:"success"`
			}
			if err := w.CallResult(&res, "importdescriptors", reqs); err != nil {
				mu.Lock()
				callErr = err
				mu.Unlock()
				return
			}
			mu.Lock()
			for j, r := range res {
				if r.Success {
					confirmed[batch*crashBatch+j] = true
				}
			}
			mu.Unlock()
		}
	}()
	// Kill once a few calls have come back, while the next one runs.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		mu.Lock()
		n := len(confirmed)
		mu.Unlock()
		if n >= 3*crashBatch || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond)
	d.Kill()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(confirmed) < 3*crashBatch {
		t.Fatalf("only %d elements imported before the kill (%v)", len(confirmed), callErr)
	}
	if callErr == nil {
		t.Fatal("the interrupted call did not fail")
	}
	t.Logf("%d elements confirmed, %d sent when killed", len(confirmed), attempted)

	d2 := testenv.StartDaemon(t, opts)
	if _, err := d2.Call("loadwallet", "w"); err != nil {
		t.Fatalf("loadwallet after the kill: %v\n%s", err, d2.Output())
	}
	w2 := &testenv.Client{URL: d2.URL + "wallet/w", User: "u", Pass: "p"}
	var listed struct {
		Descriptors []struct {
			Desc  string `json:"desc"`
			Range [2]int `json:"range"`
		} `json:"descriptors"`
	}
	if err := w2.CallResult(&listed, "listdescriptors"); err != nil {
		t.Fatal(err)
	}
	present := map[int]bool{}
	byDesc := map[string]int{}
	for i := 0; i < attempted; i++ {
		byDesc[crashDescriptor(i)] = i
	}
	for _, ld := range listed.Descriptors {
		i, ok := byDesc[ld.Desc]
		if !ok {
			t.Errorf("unexpected descriptor %s", ld.Desc)
			continue
		}
		if ld.Range != [2]int{0, crashRangeEnd} {
			t.Errorf("element %d: range %v, want [0,%d]", i, ld.Range, crashRangeEnd)
		}
		present[i] = true
	}
	for i := range confirmed {
		if !present[i] {
			t.Errorf("element %d was reported imported but is missing after the restart", i)
		}
	}
	// Every element that is there answers for its whole range.
	for i := range present {
		for _, index := range []uint32{0, crashRangeEnd} {
			var info struct {
				IsMine bool   `json:"ismine"`
				Desc   string `json:"desc"`
			}
			if err := w2.CallResult(&info, "getaddressinfo", crashAddress(t, i, index)); err != nil {
				t.Fatal(err)
			}
			if !info.IsMine || info.Desc == "" {
				t.Errorf("element %d index %d after the restart: %+v", i, index, info)
			}
		}
	}
	// Elements are imported one after the other: those of the
	// interrupted call that made it are its first ones.
	for i := 1; i < attempted; i++ {
		if present[i] && !present[i-1] {
			t.Errorf("element %d is there but element %d is not", i, i-1)
		}
	}
	t.Logf("%d elements present after the restart", len(present))
}
