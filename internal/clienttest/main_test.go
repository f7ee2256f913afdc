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

// TestMain builds descwallet-cli once for all tests; testenv builds the
// daemon.
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
	if err := buildCLI(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		status = m.Run()
	}
	os.RemoveAll(dir)
	testenv.CleanupBuilds()
	os.Exit(status)
}

// buildCLI builds descwallet-cli into dir.
func buildCLI(dir string) error {
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "descwallet-cli"), "./cmd/descwallet-cli")
	cmd.Dir = testenv.RepoRoot()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/descwallet-cli: %v\n%s", err, out)
	}
	return nil
}

// cliPath returns the built descwallet-cli.
func cliPath() string { return filepath.Join(binDir, "descwallet-cli") }
