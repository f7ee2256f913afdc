package wallettest

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/descwallet/descwallet/internal/testenv"
)

const lockedMessage = "Wallet file verification failed. SQLiteDatabase: Unable to obtain an exclusive lock on the database, is it being used by another instance of Bitcoin Core?\n"

// TestWalletLoadsOnce loads a loaded wallet again by its absolute path,
// and from a second node with another data dir: both are refused with
// Core's -4 lock error, so no two copies hand out the same address. Once
// the first node unloads it, the second node loads it.
func TestWalletLoadsOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd twice")
	}
	t.Parallel()
	d := testenv.StartDaemon(t, nil)
	if _, err := d.Call("createwallet", "w"); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(d.NetDir, "wallets", "w")
	other := testenv.StartDaemon(t, nil)
	for _, c := range []struct {
		who string
		d   *testenv.Daemon
	}{{"the same node", d}, {"another node", other}} {
		_, err := c.d.Call("loadwallet", abs)
		var re *testenv.RPCError
		if !errors.As(err, &re) || re.Code != -4 || re.Message != lockedMessage {
			t.Fatalf("loadwallet by absolute path from %s: %v", c.who, err)
		}
	}
	var listed []string
	if err := d.CallResult(&listed, "listwallets"); err != nil || len(listed) != 1 {
		t.Fatalf("listwallets: %v %v", listed, err)
	}
	if _, err := d.Call("unloadwallet", "w"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Call("loadwallet", abs); err != nil {
		t.Fatalf("loadwallet from another node after the unload: %v", err)
	}
	_, err := d.Call("loadwallet", "w")
	var re *testenv.RPCError
	if !errors.As(err, &re) || re.Code != -4 || re.Message != lockedMessage {
		t.Fatalf("loadwallet while the other node holds it: %v", err)
	}
}
