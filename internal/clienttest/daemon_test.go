package clienttest

import (
	"testing"

	"github.com/descwallet/descwallet/internal/testenv"
)

// startDaemon starts descwalletd on regtest for one test: with user and
// password when pass is not empty, with cookie authentication otherwise.
func startDaemon(t *testing.T, user, pass string) *testenv.Daemon {
	t.Helper()
	if pass == "" {
		return testenv.StartDaemon(t, &testenv.DaemonOptions{Cookie: true})
	}
	return testenv.StartDaemon(t, &testenv.DaemonOptions{User: user, Pass: pass})
}
