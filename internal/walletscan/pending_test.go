package walletscan_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestImportRescanRecordedWithDescriptor imports a descriptor with history
// while the node cannot reach its backend: the descriptor is stored but the
// rescan's heights cannot be worked out. The element's own transaction
// recorded the pending rescan by its timestamp, so the next start, with the
// backend back, finishes it and the history is complete.
func TestImportRescanRecordedWithDescriptor(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	key := testenv.NewKey("walletscan pending import key")
	b := testenv.StartBtcd(t, &testenv.BtcdOptions{MiningAddr: key.WPKH.Address})
	b.Generate(110)
	dir := t.TempDir()
	d := startNode(t, dir, b)
	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "w", true, true)
	waitSynced(t, d.client("w"), b)
	d.stop()

	dead, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	d = startNode(t, dir, nil, "-wallet=w", "-chainbackend=btcd",
		"-chainrpcconnect=127.0.0.1:"+strconv.Itoa(dead), "-chainrpcuser=x", "-chainrpcpassword=y")
	c := d.client("w")
	desc := descriptor.AddChecksum("wpkh(" + key.PubKeyHex + ")")
	if res, err := importDesc(c, desc, 0, nil); err == nil {
		t.Fatalf("import with the backend unreachable succeeded: %s", res)
	}
	var ld struct {
		Descriptors []struct {
			Desc string `json:"desc"`
		} `json:"descriptors"`
	}
	call(t, c, &ld, "listdescriptors")
	if len(ld.Descriptors) != 1 || ld.Descriptors[0].Desc != desc {
		t.Fatalf("the element was not stored: %+v", ld)
	}
	d.stop()

	d = startNode(t, dir, b, "-wallet=w")
	c = d.client("w")
	testenv.Eventually(t, 60*time.Second, func() error {
		var us []unspent
		if err := c.CallResult(&us, "listunspent"); err != nil {
			return err
		}
		if len(us) != 10 {
			return fmt.Errorf("%d coins listed, want 10", len(us))
		}
		var wi struct {
			TxCount  int             `json:"txcount"`
			Scanning json.RawMessage `json:"scanning"`
		}
		if err := c.CallResult(&wi, "getwalletinfo"); err != nil {
			return err
		}
		if wi.TxCount != 110 || string(wi.Scanning) != "false" {
			return fmt.Errorf("getwalletinfo txcount %d scanning %s", wi.TxCount, wi.Scanning)
		}
		return nil
	})
	var lt []struct {
		Category string `json:"category"`
	}
	call(t, c, &lt, "listtransactions", "*", 200)
	if n := strings.Count(fmt.Sprint(lt), "generate"); len(lt) != 110 || n != 10 {
		t.Errorf("listtransactions: %d entries, %d generate", len(lt), n)
	}
}

// TestOfflineImportAfterSyncCatchesUp imports a descriptor with history,
// offline, into a wallet that had followed the chain: the next start with
// the backend finds its history, though it lies below the wallet's last
// processed block.
func TestOfflineImportAfterSyncCatchesUp(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	key := testenv.NewKey("walletscan offline after sync key")
	b := testenv.StartBtcd(t, &testenv.BtcdOptions{MiningAddr: key.WPKH.Address})
	b.Generate(105)
	dir := t.TempDir()
	d := startNode(t, dir, b)
	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "w", true, true)
	waitSynced(t, d.client("w"), b)
	d.stop()

	d = startNode(t, dir, nil, "-wallet=w")
	desc := descriptor.AddChecksum("wpkh(" + key.PubKeyHex + ")")
	if res, err := importDesc(d.client("w"), desc, 0, nil); err != nil ||
		!strings.Contains(string(res), `"success":true`) {
		t.Fatalf("offline import: %s %v", res, err)
	}
	d.stop()

	d = startNode(t, dir, b, "-wallet=w")
	c := d.client("w")
	testenv.Eventually(t, 60*time.Second, func() error {
		var us []unspent
		if err := c.CallResult(&us, "listunspent"); err != nil {
			return err
		}
		if len(us) != 5 {
			return fmt.Errorf("%d coins listed, want 5", len(us))
		}
		return nil
	})
}
