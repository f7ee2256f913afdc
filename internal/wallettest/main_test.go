package wallettest

import (
	"os"
	"testing"

	"github.com/descwallet/descwallet/internal/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.CleanupBuilds()
	os.Exit(code)
}
