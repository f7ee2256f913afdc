package clienttest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/descwallet/descwallet/internal/testenv"
)

// binDir holds the binaries built for this run; empty in -short mode.
var binDir string

// TestMain builds descwalletd and descwallet-cli once for all tests.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "clienttest-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	status := 1
	if err := buildBinaries(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		status = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(status)
}

// buildBinaries builds the daemon and the CLI into dir.
func buildBinaries(dir string) error {
	for _, pkg := range []string{"descwalletd", "descwallet-cli"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, pkg), "./cmd/"+pkg)
		cmd.Dir = testenv.RepoRoot()
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return nil
}

// cliPath returns the built descwallet-cli.
func cliPath() string { return filepath.Join(binDir, "descwallet-cli") }
