package descriptor

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/descwallet/descwallet/internal/testvec"
)

func netByName(t testing.TB, name string) *chaincfg.Params {
	switch name {
	case "main":
		return &chaincfg.MainNetParams
	case "test":
		return &chaincfg.TestNet3Params
	case "regtest":
		return &chaincfg.RegressionNetParams
	case "signet":
		return &chaincfg.SigNetParams
	case "testnet4":
		return &chaincfg.TestNet4Params
	}
	t.Fatalf("unknown network %q", name)
	return nil
}

type keyPath struct {
	Indices []uint32 `json:"indices"`
	Path    string   `json:"path"`
}

type validCase struct {
	ID                 string            `json:"id"`
	Kind               string            `json:"kind"`
	Network            string            `json:"network"`
	Private            string            `json:"private"`
	Public             string            `json:"public"`
	NormalizedPublic   string            `json:"normalized_public"`
	Flags              []string          `json:"flags"`
	IsRange            bool              `json:"is_range"`
	Solvable           bool              `json:"solvable"`
	OutputType         *string           `json:"output_type"`
	Scripts            json.RawMessage   `json:"scripts"`
	DescriptorID       string            `json:"descriptor_id"`
	ExpectedKeyPaths   []keyPath         `json:"expected_key_paths"`
	ExpectedPrivate    string            `json:"expected_private_string"`
	ExpectedPublic     string            `json:"expected_public_string"`
	AlsoH              bool              `json:"also_checked_with_h_instead_of_apostrophe"`
	Expansions         json.RawMessage   `json:"expansions"`
	Descriptor         string            `json:"descriptor"`
	Checksum           string            `json:"checksum"`
	IsMultipath        bool              `json:"is_multipath"`
	KeyExpression      string            `json:"key_expression"`
	Script             string            `json:"script"`
	ProviderScripts    []string          `json:"provider_scripts"`
	ProviderPubkeys    []providerPubkey  `json:"provider_pubkeys"`
	ExpectedDescriptor string            `json:"expected_descriptor"`
	Extra              map[string]string `json:"-"`
}

type providerPubkey struct {
	PubKey string `json:"pubkey"`
	Origin *struct {
		Fingerprint string   `json:"fingerprint"`
		Path        []uint32 `json:"path"`
	} `json:"origin"`
}

type expansionCase struct {
	Index            int             `json:"index"`
	Private          string          `json:"private"`
	Public           string          `json:"public"`
	NormalizedPublic string          `json:"normalized_public"`
	Scripts          [][]string      `json:"scripts"`
	ExpectedKeyPaths []keyPath       `json:"expected_key_paths"`
	Raw              json.RawMessage `json:"-"`
}

func hasFlag(flags []string, f string) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}

// sameDesc compares descriptor strings, ignoring the checksum when only one
// side has it (as Core's test does).
func sameDesc(got, want string) bool {
	if strings.Contains(want, "#") && strings.Contains(got, "#") {
		return got == want
	}
	g, _, _ := strings.Cut(got, "#")
	w, _, _ := strings.Cut(want, "#")
	return g == w
}

func pathString(indices []uint32) string {
	if len(indices) == 0 {
		return ""
	}
	return formatPath(indices, false)[1:]
}

// checkScripts expands d at the indexes the vector gives and compares the
// scripts and the key-origin paths met.
func checkScripts(t *testing.T, d *Descriptor, ranged bool, scripts [][]string, wantPaths []keyPath, cache *Cache) {
	t.Helper()
	gotPaths := map[string]bool{}
	count := len(scripts)
	if !ranged {
		count = 3
	}
	for i := 0; i < count; i++ {
		want := scripts[0]
		if ranged {
			want = scripts[i]
		}
		outs, err := d.Expand(uint32(i), cache)
		if err != nil {
			t.Errorf("expand %d: %v", i, err)
			return
		}
		var got []string
		for _, o := range outs {
			got = append(got, hex.EncodeToString(o.ScriptPubKey))
			for _, k := range o.Keys {
				gotPaths[pathString(k.Origin.Path)] = true
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("index %d scripts\n got %v\nwant %v", i, got, want)
		}
	}
	if wantPaths != nil {
		var g, w []string
		for p := range gotPaths {
			g = append(g, p)
		}
		for _, p := range wantPaths {
			w = append(w, pathString(p.Indices))
		}
		sort.Strings(g)
		sort.Strings(w)
		w = dedup(w)
		if strings.Join(g, "|") != strings.Join(w, "|") {
			t.Errorf("key paths\n got %q\nwant %q", g, w)
		}
	}
}

func dedup(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func pendingOrRun(t *testing.T, id string, f func(t *testing.T)) {
	if feat, ok := testvec.Pending(id); ok {
		t.Logf("%s: pending on %s", id, feat)
		return
	}
	t.Run(id, f)
}

func checkCore(t *testing.T, c validCase, priv, pub string, expPub, expPriv, norm string) {
	net := netByName(t, c.Network)
	dPriv, err := Parse(priv, net)
	if err != nil {
		t.Fatalf("parse private: %v", err)
	}
	dPub, err := Parse(pub, net)
	if err != nil {
		t.Fatalf("parse public: %v", err)
	}
	for _, d := range []*Descriptor{dPriv, dPub} {
		if got := d.String(); !sameDesc(got, expPub) {
			t.Errorf("String\n got %s\nwant %s", got, expPub)
		}
		if d.IsRange() != c.IsRange {
			t.Errorf("IsRange = %v", d.IsRange())
		}
		if d.IsSolvable() != c.Solvable {
			t.Errorf("IsSolvable = %v", d.IsSolvable())
		}
		want := ""
		if c.OutputType != nil {
			want = *c.OutputType
		}
		if got := d.OutputType(); got != want {
			t.Errorf("OutputType = %q, want %q", got, want)
		}
	}
	if !hasFlag(c.Flags, "MISSING_PRIVKEYS") {
		got, ok := dPriv.PrivateString()
		if !ok || !sameDesc(got, expPriv) {
			t.Errorf("PrivateString (%v)\n got %s\nwant %s", ok, got, expPriv)
		}
	}
	if _, ok := dPub.PrivateString(); ok {
		t.Errorf("public descriptor claims a private key")
	}
	if norm != "" {
		got, err := dPriv.NormalizedString(nil)
		if err != nil || !sameDesc(got, norm) {
			t.Errorf("NormalizedString (%v)\n got %s\nwant %s", err, got, norm)
		}
	}
	if c.DescriptorID != "" {
		id := dPub.ID()
		if hex.EncodeToString(id[:]) != c.DescriptorID {
			t.Errorf("ID %x, want %s", id, c.DescriptorID)
		}
	}
	var scripts [][]string
	if err := json.Unmarshal(c.Scripts, &scripts); err != nil {
		t.Fatal(err)
	}
	cache := NewCache()
	checkScripts(t, dPriv, c.IsRange, scripts, c.ExpectedKeyPaths, cache)
	if hasFlag(c.Flags, "HARDENED") {
		if _, err := dPub.Expand(0, nil); !errors.Is(err, ErrHardenedFromPublic) {
			t.Errorf("public expansion without cache: %v", err)
		}
		checkScripts(t, dPub.Public(), c.IsRange, scripts, c.ExpectedKeyPaths, cache)
		got, err := dPub.NormalizedString(cache)
		if err != nil || !sameDesc(got, norm) {
			t.Errorf("NormalizedString from cache (%v)\n got %s\nwant %s", err, got, norm)
		}
	} else {
		checkScripts(t, dPub, c.IsRange, scripts, c.ExpectedKeyPaths, nil)
	}
}

func TestDescriptorsValid(t *testing.T) {
	var v struct {
		Cases []validCase `json:"cases"`
	}
	testvec.Load(t, "descriptors_valid.json", &v)
	for _, c := range v.Cases {
		c := c
		switch c.Kind {
		case "core_check":
			pendingOrRun(t, c.ID, func(t *testing.T) {
				pub := c.Public
				if c.ExpectedPublic != "" {
					pub = c.ExpectedPublic
				}
				priv := c.Private
				if c.ExpectedPrivate != "" {
					priv = c.ExpectedPrivate
				}
				checkCore(t, c, c.Private, c.Public, pub, priv, c.NormalizedPublic)
				if c.AlsoH {
					h := func(s string) string {
						s, _, _ = strings.Cut(s, "#")
						return strings.ReplaceAll(s, "'", "h")
					}
					checkCore(t, c, h(c.Private), h(c.Public), h(pub), h(priv), c.NormalizedPublic)
				}
			})
		case "core_multipath":
			pendingOrRun(t, c.ID, func(t *testing.T) { checkMultipathCase(t, c) })
		case "core_infer":
			pendingOrRun(t, c.ID, func(t *testing.T) { checkInferCase(t, c) })
		case "bip_vector":
			pendingOrRun(t, c.ID, func(t *testing.T) { checkBIPValid(t, c) })
		case "bip380_key_expression":
			pendingOrRun(t, c.ID, func(t *testing.T) {
				if _, err := Parse(wrapKey(c.KeyExpression), netByName(t, c.Network)); err != nil {
					t.Errorf("%s: %v", c.KeyExpression, err)
				}
			})
		case "rpc_getdescriptorinfo", "rpc_deriveaddresses":
			// Checked by the RPC method tests.
		default:
			t.Errorf("%s: unknown kind %s", c.ID, c.Kind)
		}
	}
}

// wrapKey places a KEY expression where its form is allowed: x-only keys
// in tr(), others in pk().
func wrapKey(k string) string {
	bare := k
	if i := strings.LastIndexByte(k, ']'); i >= 0 {
		bare = k[i+1:]
	}
	if len(bare) == 64 && isHex(bare) {
		return "tr(" + k + ")"
	}
	return "pk(" + k + ")"
}

func checkMultipathCase(t *testing.T, c validCase) {
	net := netByName(t, c.Network)
	var exps []expansionCase
	if err := json.Unmarshal(c.Expansions, &exps); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{c.Private, c.Public} {
		d, err := Parse(s, net)
		if err != nil {
			t.Fatalf("parse %s: %v", s, err)
		}
		if !d.IsMultipath() || d.IsRange() != c.IsRange || d.IsSolvable() != c.Solvable {
			t.Errorf("flags: multipath %v range %v solvable %v", d.IsMultipath(), d.IsRange(), d.IsSolvable())
		}
		if got := d.String(); !sameDesc(got, c.Public) {
			t.Errorf("String\n got %s\nwant %s", got, c.Public)
		}
		branches := d.Multipath()
		if len(branches) != len(exps) {
			t.Fatalf("%d branches, want %d", len(branches), len(exps))
		}
		isPriv := s == c.Private
		for i, e := range exps {
			b := branches[e.Index]
			if got := b.String(); !sameDesc(got, e.Public) {
				t.Errorf("branch %d String\n got %s\nwant %s", i, got, e.Public)
			}
			cache := NewCache()
			if isPriv {
				got, ok := b.PrivateString()
				if !ok || !sameDesc(got, e.Private) {
					t.Errorf("branch %d PrivateString\n got %s\nwant %s", i, got, e.Private)
				}
				got, err := b.NormalizedString(nil)
				if err != nil || !sameDesc(got, e.NormalizedPublic) {
					t.Errorf("branch %d NormalizedString (%v)\n got %s\nwant %s", i, err, got, e.NormalizedPublic)
				}
				checkScripts(t, b, c.IsRange, e.Scripts, e.ExpectedKeyPaths, cache)
			} else if !hasFlag(c.Flags, "HARDENED") {
				checkScripts(t, b, c.IsRange, e.Scripts, e.ExpectedKeyPaths, nil)
			}
		}
	}
}

func checkBIPValid(t *testing.T, c validCase) {
	net := netByName(t, c.Network)
	d, err := Parse(c.Descriptor, net)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if c.Checksum != "" {
		sum, err := Checksum(c.Descriptor)
		if err != nil || sum != c.Checksum {
			t.Errorf("checksum %s (%v), want %s", sum, err, c.Checksum)
		}
		if _, err := Parse(c.Descriptor+"#"+c.Checksum, net, RequireChecksum()); err != nil {
			t.Errorf("parse with checksum: %v", err)
		}
	}
	if d.IsRange() != c.IsRange || d.IsMultipath() != c.IsMultipath {
		t.Errorf("range %v multipath %v", d.IsRange(), d.IsMultipath())
	}
	if c.IsMultipath {
		var exps []string
		if err := json.Unmarshal(c.Expansions, &exps); err != nil {
			t.Fatal(err)
		}
		bs := d.Multipath()
		if len(bs) != len(exps) {
			t.Fatalf("%d branches, want %d", len(bs), len(exps))
		}
		for i, e := range exps {
			want, err := Parse(e, net)
			if err != nil {
				t.Fatalf("parse expansion %s: %v", e, err)
			}
			if bs[i].String() != want.String() {
				t.Errorf("branch %d\n got %s\nwant %s", i, bs[i].String(), want.String())
			}
		}
		return
	}
	var scripts [][]string
	if len(c.Scripts) > 0 && string(c.Scripts) != "null" {
		if err := json.Unmarshal(c.Scripts, &scripts); err != nil {
			var loose []json.RawMessage
			if json.Unmarshal(c.Scripts, &loose) != nil {
				t.Fatalf("scripts: %v", err)
			}
		}
	}
	if scripts != nil {
		checkScripts(t, d, c.IsRange, scripts, nil, NewCache())
	}
}

func checkInferCase(t *testing.T, c validCase) {
	t.Helper()
	net := netByName(t, c.Network)
	p := NewFlatProvider()
	for _, s := range c.ProviderScripts {
		b, _ := hex.DecodeString(s)
		p.AddScript(b)
	}
	for _, k := range c.ProviderPubkeys {
		b, _ := hex.DecodeString(k.PubKey)
		var o *KeyOrigin
		if k.Origin != nil {
			o = &KeyOrigin{Path: k.Origin.Path}
			fp, _ := hex.DecodeString(k.Origin.Fingerprint)
			copy(o.Fingerprint[:], fp)
		}
		p.AddPubKey(b, o)
	}
	spk, _ := hex.DecodeString(c.Script)
	d := Infer(spk, p, net)
	if got := d.String(); got != c.ExpectedDescriptor {
		t.Errorf("Infer\n got %s\nwant %s", got, c.ExpectedDescriptor)
	}
}

type invalidCase struct {
	ID             string          `json:"id"`
	Kind           string          `json:"kind"`
	Network        string          `json:"network"`
	Descriptor     string          `json:"descriptor"`
	PrivateVariant *string         `json:"private_variant"`
	Error          string          `json:"error"`
	KeyExpression  string          `json:"key_expression"`
	RPCError       json.RawMessage `json:"rpc_error"`
}

func TestDescriptorsInvalid(t *testing.T) {
	var v struct {
		Cases []invalidCase `json:"cases"`
	}
	testvec.Load(t, "descriptors_invalid.json", &v)
	for _, c := range v.Cases {
		c := c
		switch c.Kind {
		case "core_unparsable":
			pendingOrRun(t, c.ID, func(t *testing.T) {
				net := netByName(t, c.Network)
				_, err := Parse(c.Descriptor, net)
				if err == nil || err.Error() != c.Error {
					t.Errorf("error %q, want %q", errString(err), c.Error)
				}
				var de *Error
				if err != nil && !errors.As(err, &de) {
					t.Errorf("error is %T, not *Error", err)
				}
				if c.PrivateVariant != nil {
					if _, err := Parse(*c.PrivateVariant, net); err == nil {
						t.Errorf("private variant parses")
					}
				}
			})
		case "bip_vector":
			pendingOrRun(t, c.ID, func(t *testing.T) {
				if _, err := Parse(c.Descriptor, netByName(t, c.Network)); err == nil {
					t.Errorf("parses: %s", c.Descriptor)
				}
			})
		case "bip380_key_expression":
			pendingOrRun(t, c.ID, func(t *testing.T) {
				if _, err := Parse(wrapKey(c.KeyExpression), netByName(t, c.Network)); err == nil {
					t.Errorf("parses: %s", c.KeyExpression)
				}
			})
		case "rpc_getdescriptorinfo", "rpc_deriveaddresses":
		default:
			t.Errorf("%s: unknown kind %s", c.ID, c.Kind)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestChecksums(t *testing.T) {
	var v struct {
		Tests []struct {
			ID        string `json:"id"`
			String    string `json:"string"`
			Valid     bool   `json:"valid"`
			CoreError string `json:"core_error"`
			RPCError  *struct {
				Message string `json:"message"`
			} `json:"rpc_error"`
		} `json:"checksum_tests"`
		Checksums []struct {
			ID         string `json:"id"`
			Descriptor string `json:"descriptor"`
			Checksum   string `json:"checksum"`
		} `json:"checksums"`
	}
	testvec.Load(t, "descriptor_checksums.json", &v)
	for _, c := range v.Tests {
		require := c.RPCError != nil
		_, _, err := splitChecksum(c.String, require)
		if c.Valid != (err == nil) {
			t.Errorf("%s: valid=%v, err=%v", c.ID, c.Valid, err)
		}
		want := c.CoreError
		if c.RPCError != nil {
			want = c.RPCError.Message
		}
		if want != "" && errString(err) != want {
			t.Errorf("%s: error %q, want %q", c.ID, errString(err), want)
		}
	}
	for _, c := range v.Checksums {
		s, _, _ := strings.Cut(c.Descriptor, "#")
		got, err := Checksum(s)
		if err != nil || got != c.Checksum {
			t.Errorf("%s: checksum %s (%v), want %s", c.ID, got, err, c.Checksum)
		}
		if AddChecksum(s) != s+"#"+c.Checksum {
			t.Errorf("%s: AddChecksum", c.ID)
		}
	}
}

var _ = fmt.Sprint
