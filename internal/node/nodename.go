package node

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/descwallet/descwallet/internal/atomicfile"
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
	// A crash leaves either no file or the whole name.
	if err := atomicfile.WriteFile(path, []byte(name+"\n")); err != nil {
		return "", err
	}
	return name, nil
}
