package archtest

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/descwallet/descwallet"

// moduleAll, as a ban, forbids every package of the module but errkind.
const moduleAll = "*"

// errkindPkg is the error-kind pattern every package shares. It imports
// only the standard library, so even the leaves (psbt, secp, safego) may
// use it without depending on anything else of the module.
const errkindPkg = module + "/errkind"

// forbidden lists, per package prefix (relative to the module), the import
// prefixes its transitive dependencies must not contain. Arrows point down:
// cmd -> node -> rpc/wallet/scan -> sign/descriptor/address/script.
var forbidden = map[string][]string{
	// The protocol layers know nothing of wallets, storage, chains or HTTP.
	"descriptor":       {"internal/wallet", "internal/store", "internal/chain", "internal/scan", "internal/rpc", "internal/node", "std:net/http", "std:database/sql"},
	"internal/address": {"descriptor", "internal/sign", "internal/wallet", "internal/store", "internal/chain", "internal/scan", "internal/rpc", "internal/node", "std:net/http", "std:database/sql"},
	"internal/script":  {"descriptor", "internal/address", "internal/sign", "internal/wallet", "internal/store", "internal/chain", "internal/scan", "internal/rpc", "internal/node", "std:net/http", "std:database/sql"},
	"internal/musig":   {"descriptor", "internal/sign", "internal/wallet", "internal/store", "internal/chain", "internal/scan", "internal/rpc", "internal/node", "std:net/http", "std:database/sql"},
	"internal/sign":    {"internal/wallet", "internal/store", "internal/chain", "internal/scan", "internal/rpc", "internal/node", "std:net/http", "std:database/sql"},
	"internal/secp":    {moduleAll}, // shared field arithmetic: a leaf
	// Base58 for addresses and for WIF and xprv strings (decoded without
	// math/big): a leaf that address, descriptor and sign share.
	"internal/base58": {moduleAll},
	// Coin selection is arithmetic over the coins the wallet hands it:
	// script classification at most, no descriptors, keys or storage.
	"internal/coinselect": {"descriptor", "psbt", "internal/sign", "internal/wallet", "internal/store", "internal/chain", "internal/scan", "internal/rpc", "internal/node", "std:net/http", "std:database/sql"},
	// The public PSBT format package is a leaf: the signer builds on it,
	// and other Go programs can use it without the rest of the module.
	"psbt": {moduleAll},
	// The wallet sees storage and the chain only through interfaces it declares.
	"internal/wallet": {"internal/store", "internal/pgstore", "internal/chain", "internal/scan", "internal/rpc", "internal/node", "std:net/http"},
	"internal/store":  {"internal/wallet", "internal/pgstore", "internal/rpc", "internal/node", "internal/scan"},
	// The PostgreSQL store is the SQLite store's sibling: neither knows
	// the other or the wallet; walletdb adapts both.
	"internal/pgstore": {"internal/wallet", "internal/store", "internal/rpc", "internal/node", "internal/scan"},
	// The test server harness is a leaf beside the stores.
	"internal/pgtest":     {"internal/wallet", "internal/store", "internal/pgstore", "internal/rpc", "internal/node"},
	"internal/chain":      {"internal/wallet", "internal/store", "internal/rpc", "internal/node", "internal/scan"},
	"internal/scan":       {"internal/rpc", "internal/node"},
	"internal/walletscan": {"internal/rpc", "internal/node", "internal/store"},
	"internal/rpc":        {"internal/node"},
	"internal/node":       {"cmd"},

	// The accounting model is a second implementation of the wallet's
	// rules, to check the first against: it shares none of its code.
	"internal/acctest": {"internal/wallet", "internal/walletscan", "internal/walletdb", "internal/scan",
		"internal/chain", "internal/store", "internal/rpc", "internal/node"},

	// Webhook delivery sees the wallets only through the Source the node
	// gives it: it sits beside rpc, under node.
	"internal/webhook": {"internal/wallet", "internal/store", "internal/chain", "internal/scan", "internal/rpc", "internal/node", "descriptor", "internal/sign"},

	// Starting goroutines with panic recovery: every layer uses it, so it
	// depends on nothing of the module.
	"internal/safego": {moduleAll},

	// Crash-safe file replacement: the stores, the wallet manager and the
	// node use it, so it depends on nothing of the module.
	"internal/atomicfile": {moduleAll},

	// Benchmark support that the signer's and the methods' benchmarks share.
	"internal/benchcpu": {moduleAll},

	// The tests both wallet stores run: the stores' in-package tests
	// import it, so it may import neither store (nor anything else of the
	// module).
	"internal/storetest": {moduleAll},

	// The shared error-kind pattern sits under every package: it imports
	// nothing of the module (violates exempts it from moduleAll, so it
	// would not catch errkind importing itself; its subpackages are
	// test helpers).
	"errkind": {moduleAll},
}

// TestDependencyDirection fails when a package imports, directly or not,
// something above it in the layering.
func TestDependencyDirection(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module; not in -short")
	}
	cmd := exec.Command("go", "list", "-deps=false", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	checked := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		for owner, bans := range forbidden {
			if pkg != owner && !strings.HasPrefix(pkg, owner+"/") {
				continue
			}
			checked++
			for _, dep := range fields[1:] {
				for _, ban := range bans {
					if violates(dep, ban) {
						t.Errorf("%s imports %s (forbidden: %s)", pkg, dep, ban)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package of the module was checked")
	}
}

// violates reports whether the import path dep falls under ban, a module
// relative prefix, with the "std:" prefix a standard-library package, or
// moduleAll.
func violates(dep, ban string) bool {
	if ban == moduleAll {
		if dep == errkindPkg || strings.HasPrefix(dep, errkindPkg+"/") {
			return false
		}
		return dep == module || strings.HasPrefix(dep, module+"/")
	}
	if std, ok := strings.CutPrefix(ban, "std:"); ok {
		return dep == std || strings.HasPrefix(dep, std+"/")
	}
	full := module + "/" + ban
	return dep == full || strings.HasPrefix(dep, full+"/")
}
