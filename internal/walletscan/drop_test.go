package walletscan_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestDroppedClientImportCompletes runs the node binary against a btcd,
// sends an importdescriptors call with timestamp 0 over a raw TCP
// connection and closes it in the middle of the rescan: the import and its
// rescan go on, and the coins paid to the descriptor near the tip (which
// only a completed rescan finds) show in listunspent.
func TestDroppedClientImportCompletes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd and the node binary")
	}
	key := testenv.NewKey("walletscan dropped client key")
	b := testenv.StartBtcd(t, nil)
	early := b.Fund(wire.NewTxOut(1_000_000, key.WPKH.Script))
	b.Generate(40)
	late := b.Fund(wire.NewTxOut(2_000_000, key.WPKH.Script))
	b.Generate(1)

	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: []string{"-chainbackend=btcd",
		"-chainrpcconnect=" + b.RPCAddr, "-chainrpcuser=" + b.User, "-chainrpcpassword=" + b.Pass}})
	var cw json.RawMessage
	call(t, d.Client, &cw, "createwallet", "w", true, true)
	c := &testenv.Client{URL: d.URL + "wallet/w", User: "u", Pass: "p"}
	// A large watch list makes the rescan last long enough to drop the
	// client in its middle.
	res, err := importDesc(c, bigRange(), "now", map[string]any{"range": []int{0, 60000}})
	if err != nil || !strings.Contains(string(res), `"success":true`) {
		t.Fatalf("import: %s %v", res, err)
	}

	desc := descriptor.AddChecksum("wpkh(" + key.PubKeyHex + ")")
	body, err := json.Marshal(map[string]any{"jsonrpc": "1.0", "id": 1, "method": "importdescriptors",
		"params": []any{[]any{map[string]any{"desc": desc, "timestamp": 0}}}})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", d.Addr)
	if err != nil {
		t.Fatal(err)
	}
	req := fmt.Sprintf("POST /wallet/w HTTP/1.1\r\nHost: %s\r\nAuthorization: Basic %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		d.Addr, base64.StdEncoding.EncodeToString([]byte("u:p")), len(body), body)
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	waitScanning(t, c)
	// The call has not answered yet: nothing is there to read.
	conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if resp, err := http.ReadResponse(bufio.NewReader(conn), nil); err == nil {
		t.Fatalf("the import answered during its rescan: %s", resp.Status)
	}
	var us []unspent
	call(t, c, &us, "listunspent")
	for _, u := range us {
		if u.TxID == late {
			t.Fatal("the late payment was found before the client dropped: the rescan is too short to test")
		}
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}

	testenv.Eventually(t, 120*time.Second, func() error {
		if err := c.CallResult(&us, "listunspent"); err != nil {
			return err
		}
		found := map[string]bool{}
		for _, u := range us {
			found[u.TxID] = true
		}
		if !found[early] || !found[late] {
			return fmt.Errorf("listunspent %v lacks %s or %s", outpoints(us), early, late)
		}
		var wi struct {
			Scanning json.RawMessage `json:"scanning"`
		}
		if err := c.CallResult(&wi, "getwalletinfo"); err != nil {
			return err
		}
		if string(wi.Scanning) != "false" {
			return fmt.Errorf("still scanning: %s", wi.Scanning)
		}
		return nil
	})
	if len(us) != 2 {
		t.Errorf("listunspent lists %d outputs, want 2: %v", len(us), outpoints(us))
	}
	var ld struct {
		Descriptors []struct {
			Desc string `json:"desc"`
		} `json:"descriptors"`
	}
	call(t, c, &ld, "listdescriptors")
	if len(ld.Descriptors) != 2 {
		t.Errorf("listdescriptors after the dropped import: %+v", ld.Descriptors)
	}
	// The rescan was not left to resume: it ended.
	var aborted bool
	call(t, c, &aborted, "abortrescan")
	if aborted {
		t.Error("a rescan still runs after the import's coins appeared")
	}
}
