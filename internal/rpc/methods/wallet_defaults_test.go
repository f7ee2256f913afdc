package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// defaultDescriptor is one of Core's eight default descriptors.
type defaultDescriptor struct {
	outputType string
	purpose    int
	wrap       string // the descriptor around the key, %s for the key
	class      script.Class
}

var defaultDescriptors = []defaultDescriptor{
	{"legacy", 44, "pkh(%s)", script.PubKeyHash},
	{"p2sh-segwit", 49, "sh(wpkh(%s))", script.ScriptHash},
	{"bech32", 84, "wpkh(%s)", script.WitnessV0KeyHash},
	{"bech32m", 86, "tr(%s)", script.WitnessV1Taproot},
}

type listedDescriptor struct {
	Desc      string  `json:"desc"`
	Timestamp int64   `json:"timestamp"`
	Active    bool    `json:"active"`
	Internal  *bool   `json:"internal"`
	Range     *[2]int `json:"range"`
	Next      *int    `json:"next"`
	NextIndex *int    `json:"next_index"`
}

func mustResult(t *testing.T, r stepReply, what string, v any) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("%s: error %d %s", what, r.Error.Code, r.Error.Message)
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		t.Fatalf("%s: %s: %v", what, r.Result, err)
	}
}

// TestDefaultDescriptors checks a new non-blank wallet with private keys:
// Core's eight active descriptors (BIP 44/49/84/86, coin type 1 on
// regtest, receive /0/* and change /1/*) in their public and private
// listings, the address kind getnewaddress and getrawchangeaddress hand out
// for each type, and the hd fields getaddressinfo reports for them.
func TestDefaultDescriptors(t *testing.T) {
	dir := t.TempDir()
	n := newWalletNode(t, dir)
	defer n.mgr.Close()
	name := "hot"
	path := walletPath(&name)
	var created struct {
		Name string `json:"name"`
	}
	before := time.Now().Unix()
	mustResult(t, n.call(t, "/", "createwallet", json.RawMessage(`["hot"]`)), "createwallet", &created)
	after := time.Now().Unix()

	var pub, priv struct {
		WalletName  string             `json:"wallet_name"`
		Descriptors []listedDescriptor `json:"descriptors"`
	}
	mustResult(t, n.call(t, path, "listdescriptors", json.RawMessage(`[]`)), "listdescriptors", &pub)
	mustResult(t, n.call(t, path, "listdescriptors", json.RawMessage(`[true]`)), "listdescriptors true", &priv)
	if len(pub.Descriptors) != 8 || len(priv.Descriptors) != 8 {
		t.Fatalf("got %d public and %d private descriptors, want 8", len(pub.Descriptors), len(priv.Descriptors))
	}

	// The public form: [fp/purpose'/1'/0']tpub/side/*, one fingerprint.
	pubRe := regexp.MustCompile(`\[([0-9a-f]{8})/(44|49|84|86)h/1h/0h\](tpub[1-9A-HJ-NP-Za-km-z]+)/([01])/\*`)
	fingerprint := ""
	publicByPath := map[string]string{} // "84/0" -> public descriptor
	for _, d := range pub.Descriptors {
		m := pubRe.FindStringSubmatch(d.Desc)
		if m == nil {
			t.Fatalf("public descriptor %s has no BIP 44/49/84/86 origin", d.Desc)
		}
		if fingerprint == "" {
			fingerprint = m[1]
		} else if m[1] != fingerprint {
			t.Errorf("fingerprints differ: %s and %s", fingerprint, m[1])
		}
		internal := m[4] == "1"
		if !d.Active || d.Internal == nil || *d.Internal != internal {
			t.Errorf("%s: active %v internal %v, want active, internal %v", d.Desc, d.Active, d.Internal, internal)
		}
		if d.Range == nil || *d.Range != [2]int{0, 999} || d.Next == nil || *d.Next != 0 {
			t.Errorf("%s: range %v next %v, want [0,999] and 0", d.Desc, d.Range, d.Next)
		}
		// Generated keys are born at creation (Core's GetTime()), not at
		// the genesis block's time that "now" means offline for imports.
		if d.Timestamp < before || d.Timestamp > after {
			t.Errorf("%s: timestamp %d, want the creation time in [%d, %d]", d.Desc, d.Timestamp, before, after)
		}
		publicByPath[m[2]+"/"+m[4]] = d.Desc
	}
	for _, dd := range defaultDescriptors {
		for _, side := range []string{"0", "1"} {
			d, ok := publicByPath[fmt.Sprint(dd.purpose)+"/"+side]
			if !ok {
				t.Fatalf("no descriptor for purpose %d side %s", dd.purpose, side)
			}
			if !strings.HasPrefix(d, strings.SplitN(dd.wrap, "%s", 2)[0]+"[") {
				t.Errorf("purpose %d: %s is not %s", dd.purpose, d, dd.wrap)
			}
		}
	}

	// The private form: the master tprv with the full path, one master
	// key, and it normalizes to the public form.
	privRe := regexp.MustCompile(`\((tprv[1-9A-HJ-NP-Za-km-z]+)/(44|49|84|86)h/1h/0h/([01])/\*\)`)
	master := ""
	for _, d := range priv.Descriptors {
		m := privRe.FindStringSubmatch(d.Desc)
		if m == nil {
			t.Fatalf("private descriptor %s is not tprv/purpose'/1'/0'/side/*", strings.SplitN(d.Desc, "tprv", 2)[0])
		}
		if master == "" {
			master = m[1]
		} else if m[1] != master {
			t.Error("private descriptors use different master keys")
		}
		pd, err := descriptor.Parse(d.Desc, &chaincfg.RegressionNetParams, descriptor.RequireChecksum())
		if err != nil {
			t.Fatalf("private descriptor does not parse: %v", err)
		}
		norm, err := pd.NormalizedString(nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := publicByPath[m[2]+"/"+m[3]]; norm != want {
			t.Errorf("private descriptor normalizes to %s, listed public %s", norm, want)
		}
	}

	type info struct {
		IsMine      bool     `json:"ismine"`
		Solvable    bool     `json:"solvable"`
		Desc        string   `json:"desc"`
		ParentDesc  string   `json:"parent_desc"`
		IsChange    bool     `json:"ischange"`
		Timestamp   *int64   `json:"timestamp"`
		HDKeyPath   string   `json:"hdkeypath"`
		HDSeedID    string   `json:"hdseedid"`
		Fingerprint string   `json:"hdmasterfingerprint"`
		Labels      []string `json:"labels"`
	}
	check := func(dd defaultDescriptor, side string, index int, addr string) {
		t.Helper()
		spk, err := address.Decode(addr, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		if c, _ := script.Solve(spk); c != dd.class {
			t.Errorf("%s address %s is %s, want %s", dd.outputType, addr, c, dd.class)
		}
		var in info
		mustResult(t, n.call(t, path, "getaddressinfo", json.RawMessage(`["`+addr+`"]`)), "getaddressinfo", &in)
		keyPath := fmt.Sprintf("m/%dh/1h/0h/%s/%d", dd.purpose, side, index)
		if !in.IsMine || !in.Solvable {
			t.Errorf("%s: ismine %v solvable %v", addr, in.IsMine, in.Solvable)
		}
		if in.HDKeyPath != keyPath || in.Fingerprint != fingerprint || in.HDSeedID != strings.Repeat("0", 40) || in.Timestamp == nil {
			t.Errorf("%s: hdkeypath %q fingerprint %q seedid %q timestamp %v, want %q %q", addr, in.HDKeyPath, in.Fingerprint, in.HDSeedID, in.Timestamp, keyPath, fingerprint)
		} else if *in.Timestamp < before || *in.Timestamp > after {
			t.Errorf("%s: timestamp %d, want the creation time in [%d, %d]", addr, *in.Timestamp, before, after)
		}
		wantDesc := strings.SplitN(dd.wrap, "%s", 2)[0] + "[" + fingerprint + keyPath[1:] + "]"
		if !strings.HasPrefix(in.Desc, wantDesc) {
			t.Errorf("%s: desc %s, want prefix %s", addr, in.Desc, wantDesc)
		}
		if in.ParentDesc != publicByPath[fmt.Sprint(dd.purpose)+"/"+side] {
			t.Errorf("%s: parent_desc %s", addr, in.ParentDesc)
		}
		change := side == "1"
		if in.IsChange != change {
			t.Errorf("%s: ischange %v, want %v", addr, in.IsChange, change)
		}
		if change && len(in.Labels) != 0 || !change && (len(in.Labels) != 1 || in.Labels[0] != "") {
			t.Errorf("%s: labels %q", addr, in.Labels)
		}
	}
	for _, dd := range defaultDescriptors {
		for i := 0; i < 2; i++ {
			var addr string
			mustResult(t, n.call(t, path, "getnewaddress", json.RawMessage(`["", "`+dd.outputType+`"]`)), "getnewaddress", &addr)
			check(dd, "0", i, addr)
			mustResult(t, n.call(t, path, "getrawchangeaddress", json.RawMessage(`["`+dd.outputType+`"]`)), "getrawchangeaddress", &addr)
			check(dd, "1", i, addr)
		}
	}
	// The default type is bech32.
	var addr string
	mustResult(t, n.call(t, path, "getnewaddress", json.RawMessage(`[]`)), "getnewaddress", &addr)
	check(defaultDescriptors[2], "0", 2, addr)
}

// TestDefaultDescriptorsMainnet checks coin type 0 on mainnet.
func TestDefaultDescriptorsMainnet(t *testing.T) {
	mgr := wallet.NewManager(wallet.ManagerConfig{NetDir: t.TempDir(), Net: &chaincfg.MainNetParams, Opener: walletdb.Opener{}})
	defer mgr.Close()
	w, _, err := mgr.Create(context.Background(), "main", wallet.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := w.ListDescriptors(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 8 {
		t.Fatalf("%d descriptors", len(ds))
	}
	re := regexp.MustCompile(`^(pkh|sh\(wpkh|wpkh|tr)\(\[[0-9a-f]{8}/(44|49|84|86)h/0h/0h\]xpub[1-9A-HJ-NP-Za-km-z]+/[01]/\*\)+#[a-z0-9]{8}$`)
	for _, d := range ds {
		if !re.MatchString(d.Desc) {
			t.Errorf("mainnet default descriptor %s", d.Desc)
		}
	}
	priv, err := w.ListDescriptors(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range priv {
		if !strings.Contains(d.Desc, "(xprv") || !strings.Contains(d.Desc, "h/0h/0h/") {
			t.Errorf("mainnet private descriptor is not xprv/purpose'/0'/0'/...: %s", strings.SplitN(d.Desc, "xprv", 2)[0])
		}
	}
}
