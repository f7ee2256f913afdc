package testenv

import (
	"strings"
	"testing"
)

// TestDaemonGoroutines checks that Goroutines ends a running node and
// returns its goroutines that run the project's code (the RPC server's
// among them), and nothing once the node has exited.
func TestDaemonGoroutines(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd")
	}
	d := StartDaemon(t, nil)
	dump := d.Goroutines()
	if !strings.HasPrefix(dump, "goroutine ") || !strings.Contains(dump, "/descwallet/internal/") {
		t.Fatalf("dump:\n%s", dump)
	}
	select {
	case <-d.Exited():
	default:
		t.Fatal("the node still runs")
	}
	if again := d.Goroutines(); again != "" {
		t.Fatalf("dump of an ended node: %q", again)
	}
}
