package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// BtcdVersion is the btcd release the harness runs; go.mod pins the same
// version as a tool dependency, and the Makefile's btcd target builds it to
// the same path.
const BtcdVersion = "v0.26.2"

// btcdModule is the package path of btcd's main package.
const btcdModule = "github.com/btcsuite/btcd"

// RepoRoot returns the absolute path of the repository (the folder holding
// go.mod).
func RepoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testenv: cannot locate source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// ToolsDir returns the cache folder for built tools, <repo>/.cache/tools.
func ToolsDir() string {
	return filepath.Join(RepoRoot(), ".cache", "tools")
}

var (
	btcdOnce sync.Once
	btcdPath string
	btcdErr  error
)

// BtcdPath returns the path of the pinned btcd binary, building it on first
// use. DESCWALLET_BTCD overrides it with a prebuilt binary.
func BtcdPath() (string, error) {
	btcdOnce.Do(func() {
		if p := os.Getenv("DESCWALLET_BTCD"); p != "" {
			btcdPath = p
			if _, err := os.Stat(p); err != nil {
				btcdErr = fmt.Errorf("DESCWALLET_BTCD: %w", err)
			}
			return
		}
		btcdPath, btcdErr = buildTool(btcdModule, "btcd-"+BtcdVersion)
	})
	return btcdPath, btcdErr
}

// buildTool builds pkg, as the repository's go.mod pins it, into
// ToolsDir()/name unless that file exists already. A lock file serialises
// concurrent builders; the binary is written under a temporary name and
// renamed into place, so a reader never sees half a file.
func buildTool(pkg, name string) (string, error) {
	dir := ToolsDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	target := filepath.Join(dir, name)
	if isExecutable(target) {
		return target, nil
	}
	unlock, err := lockFile(target + ".lock")
	if err != nil {
		return "", fmt.Errorf("lock %s: %w", target, err)
	}
	defer unlock()
	if isExecutable(target) {
		return target, nil
	}

	tmp := fmt.Sprintf("%s.tmp%d", target, os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, pkg)
	cmd.Dir = RepoRoot()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err,
			strings.TrimSpace(string(out)))
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return target, nil
}

// isExecutable reports whether path is a regular file with an execute bit.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
