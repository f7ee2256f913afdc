package node

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// nodeNameFile, in the network's data dir, holds the node's name: random
// when first made, then the same at every run.
const nodeNameFile = "node.name"

// nodeName returns the name of the node whose data dir is netDir, making
// it at the first call. The data dir's lock is held, so no other run
// reads or writes the file meanwhile. The PostgreSQL store names the
// node's lock session after it (pgstore.ConnectAs): a run started after a
// crash then knows the wallet locks its dead predecessor's session still
// holds.
func nodeName(netDir string) (string, error) {
	path := filepath.Join(netDir, nodeNameFile)
	b, err := os.ReadFile(path)
	if err == nil {
		name := strings.TrimSpace(string(b))
		if len(name) != 32 {
			return "", fmt.Errorf("%s does not hold a node name", nodeNameFile)
		}
		if _, err := hex.DecodeString(name); err != nil {
			return "", fmt.Errorf("%s does not hold a node name", nodeNameFile)
		}
		return name, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	var r [16]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	name := hex.EncodeToString(r[:])
	// Written under a temporary name, synced, then renamed: a crash
	// leaves either no file or the whole name.
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(name + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return name, syncDir(netDir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
