package archtest

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// secretRoots are the functions of the module that compute on private
// keys, nonces or points derived from them. Every function reachable from
// them in the module's static call graph must stay off variableTime.
var secretRoots = []string{
	// signing and the keys of signrawtransactionwithkey
	"internal/sign.SignECDSA",
	"internal/sign.signECDSAVerified",
	"internal/sign.signECDSA",
	"internal/sign.signECDSABatch",
	"internal/sign.signExhaustive",
	"internal/sign.nonceRFC6979",
	"internal/sign.nonceAt",
	"internal/sign.nonceRFC6979At",
	"internal/sign.hmacSHA256",
	"internal/sign.condSet",
	"internal/sign.SignMessage",
	"internal/sign.signMessage",
	"internal/sign.signCompact",
	"internal/sign.newSchnorrKey",
	"(*internal/sign.schnorrKey).signSchnorr",
	"(*internal/sign.schnorrKey).signSchnorrRaw",
	"internal/sign.pubKeyOf",
	"internal/sign.pubKeysOf",
	"internal/sign.NewKey",
	"internal/sign.newKey",
	"internal/sign.DecodeWIF",
	"internal/sign.DecodeWIFs",
	"internal/sign.decodeWIF",
	"(*internal/sign.Key).signECDSA",
	"(*internal/sign.Key).schnorrKeys",
	"(*internal/sign.Key).tweakedKey",
	// the constant-time half of secp
	"internal/secp.InvertScalar",
	"internal/secp.ToAffineBatch",
	"internal/secp.ScalarBaseMultConst",
	// private keys in descriptors: xprv, BIP 32 private children, WIF
	"descriptor.decodeExtKey",
	"descriptor.privToPub",
	"(*descriptor.extKey).privChild",
	"descriptor.deriveChildPriv",
	"descriptor.childPrivKey",
	"descriptor.decodeWIF",
	"(*descriptor.wifKey).pubKey",
	"descriptor.encodeWIF",
	"(*descriptor.extKey).xprv",
	"descriptor.MasterXprv",
	// WIF and xprv strings
	"internal/base58.DecodeCheckSecret",
	"internal/base58.EncodeCheckSecret",
}

// variableTime are functions whose running time depends on their input
// and that must never see a secret: the variable-time half of package secp
// (math/big inside), the library's math/big scalar inversions and the
// library's ECDSA signers, which invert the nonce with them. Any use of
// math/big, of hdkeychain (math/big on private keys) or of btcd's base58
// (math/big divisions), counts too.
var variableTime = map[string]bool{
	"internal/secp.InvertField":      true,
	"internal/secp.ToAffine":         true,
	"internal/secp.VerifyECDSA":      true,
	"internal/secp.VerifyECDSABatch": true,
	"internal/secp.VerifySchnorr":    true,
	// Affine additions of public points on the four-limb field, with its
	// exponentiation inverse: variable time without math/big.
	"(*internal/secp.BatchAdder).Add":                                            true,
	"(*github.com/decred/dcrd/dcrec/secp256k1/v4.ModNScalar).InverseValNonConst": true,
	"(*github.com/decred/dcrd/dcrec/secp256k1/v4.ModNScalar).InverseNonConst":    true,
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa.Sign":                       true,
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa.SignCompact":                true,
	"github.com/btcsuite/btcd/btcec/v2/ecdsa.Sign":                               true,
	"github.com/btcsuite/btcd/btcec/v2/ecdsa.SignCompact":                        true,
	// The library's scalar multiplications index tables by the scalar's
	// digits and branch in their additions: secp.ScalarBaseMultConst is
	// the secret-side k·G. PrivKeyFromBytes of btcec and PrivateKey.PubKey
	// compute the public key with them.
	"github.com/decred/dcrd/dcrec/secp256k1/v4.ScalarBaseMultNonConst": true,
	"github.com/decred/dcrd/dcrec/secp256k1/v4.ScalarMultNonConst":     true,
	"github.com/btcsuite/btcd/btcec/v2.ScalarBaseMultNonConst":         true,
	"github.com/btcsuite/btcd/btcec/v2.ScalarMultNonConst":             true,
	"github.com/btcsuite/btcd/btcec/v2.PrivKeyFromBytes":               true,
	"(*github.com/decred/dcrd/dcrec/secp256k1/v4.PrivateKey).PubKey":   true,
}

// publicInputs are functions that secret functions call with public
// values only, whose running time may therefore depend on their inputs:
// the walk from the secret roots does not enter them. Each takes only
// public types (a signature or hash as bytes, a public key), which the
// test checks, and only the values named here: sign.verifyECDSA and
// sign.verifyECDSABatch verify finished signatures (DER bytes, the
// signature hashes, the public keys) with secp.VerifyECDSA and
// secp.VerifyECDSABatch, the variable-time verifiers, and
// sign.verifySchnorr finished BIP 340 signatures with secp.VerifySchnorr.
var publicInputs = map[string]bool{
	"internal/sign.verifyECDSA":      true,
	"internal/sign.verifyECDSABatch": true,
	"internal/sign.verifySchnorr":    true,
}

// publicParamTypes are the parameter types a publicInputs function may
// take.
var publicParamTypes = map[string]bool{
	"[]byte":   true,
	"[][]byte": true,
	"*github.com/decred/dcrd/dcrec/secp256k1/v4.PublicKey":   true,
	"[]*github.com/decred/dcrd/dcrec/secp256k1/v4.PublicKey": true,
}

var variableTimePkgs = []string{"math/big", "github.com/btcsuite/btcd/btcutil/v2/hdkeychain",
	// btcd's base58 divides with math/big.
	"github.com/btcsuite/btcd/address/v2/base58"}

// TestSecretsConstantTime walks the static call graph of the module's
// source from each secret function and fails when it reaches a
// variable-time function, math/big or hdkeychain: a value derived from a
// secret must go through the library's constant-time arithmetic only.
// Calls through interfaces and function values of other packages are not
// followed (the secret code makes none that matter); references to
// functions, called or not, are.
func TestSecretsConstantTime(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module; not in -short")
	}
	g := loadCallGraph(t, module+"/descriptor", module+"/internal/sign")

	// The walk must see what it guards against: InvertField uses math/big.
	if path := g.violation(module + "/internal/secp.InvertField"); path == nil {
		t.Fatal("the walk does not find math/big in secp.InvertField")
	}
	// The library's k·G is variable time: the taproot tweak of a public
	// key (public data) reaches it.
	if path := g.violation(module + "/descriptor.tweakKey"); path == nil {
		t.Fatal("the walk does not see the library's ScalarBaseMultNonConst as variable time")
	}
	// The descriptor fast path's batched additions are variable time.
	if path := g.violation("(*" + module + "/descriptor.pointBatch).addPending"); path == nil {
		t.Fatal("the walk does not see secp.BatchAdder.Add as variable time")
	}
	// The verifier is variable time, and the walk would reach it from the
	// signer were it not for the public-input boundary.
	if path := g.violation(module + "/internal/secp.VerifyECDSA"); path == nil {
		t.Fatal("the walk does not see secp.VerifyECDSA as variable time")
	}
	for name := range publicInputs {
		full := qualify(name)
		if !g.defined[full] {
			t.Errorf("public-input function %s not found (renamed? update publicInputs)", name)
			continue
		}
		for _, pt := range g.params[full] {
			if !publicParamTypes[pt] {
				t.Errorf("public-input function %s takes a %s, which may hold a secret", name, pt)
			}
		}
		if g.violation(full) == nil {
			t.Errorf("public-input function %s reaches no variable-time code: drop it from publicInputs", name)
		}
	}
	for _, root := range secretRoots {
		full := qualify(root)
		if !g.defined[full] {
			t.Errorf("secret function %s not found (renamed? update secretRoots)", root)
			continue
		}
		if path := g.violation(full); path != nil {
			t.Errorf("%s reaches variable-time code: %s", root, strings.Join(path, " -> "))
		}
	}
}

// qualify prefixes the module path to a name written relative to it.
func qualify(name string) string {
	if strings.HasPrefix(name, "(*") {
		return "(*" + module + "/" + name[2:]
	}
	return module + "/" + name
}

// callGraph maps each function of the module (by types.Func.FullName) to
// the functions and package-level objects its body refers to.
type callGraph struct {
	defined map[string]bool
	refs    map[string][]string
	params  map[string][]string // parameter types, by function
}

// violation returns a path from root to a variable-time function or
// package, or nil.
func (g *callGraph) violation(root string) []string {
	prev := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur != root && publicInputs[strings.Replace(cur, module+"/", "", 1)] {
			continue
		}
		if isVariableTime(cur) {
			var path []string
			for n := cur; n != ""; n = prev[n] {
				path = append([]string{strings.Replace(n, module+"/", "", 1)}, path...)
			}
			return path
		}
		for _, next := range g.refs[cur] {
			if _, seen := prev[next]; !seen {
				prev[next] = cur
				queue = append(queue, next)
			}
		}
	}
	return nil
}

func isVariableTime(name string) bool {
	if variableTime[strings.Replace(name, module+"/", "", 1)] || variableTime[name] {
		return true
	}
	bare := strings.TrimPrefix(strings.TrimPrefix(name, "(*"), "(")
	for _, p := range variableTimePkgs {
		if strings.HasPrefix(bare, p+".") {
			return true
		}
	}
	return false
}

// loadCallGraph type-checks every package of the module that the given
// packages depend on (themselves included) from source, with the other
// imports read from the build's export data, and records each function's
// references.
func loadCallGraph(t *testing.T, pkgs ...string) *callGraph {
	t.Helper()
	args := append([]string{"list", "-export", "-deps", "-f",
		"{{.ImportPath}}\t{{.Export}}\t{{.Dir}}\t{{join .GoFiles \",\"}}"}, pkgs...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	type srcPkg struct {
		path, dir string
		files     []string
	}
	var src []srcPkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 4 {
			continue
		}
		exports[f[0]] = f[1]
		if f[0] == module || strings.HasPrefix(f[0], module+"/") {
			src = append(src, srcPkg{path: f[0], dir: f[2], files: strings.Split(f[3], ",")})
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	g := &callGraph{defined: map[string]bool{}, refs: map[string][]string{}, params: map[string][]string{}}
	for _, p := range src {
		var files []*ast.File
		for _, name := range p.files {
			f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(p.path, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", p.path, err)
		}
		for _, f := range files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				fn, ok := info.Defs[fd.Name].(*types.Func)
				if !ok {
					continue
				}
				name := fn.FullName()
				g.defined[name] = true
				sig := fn.Type().(*types.Signature)
				for i := range sig.Params().Len() {
					g.params[name] = append(g.params[name], sig.Params().At(i).Type().String())
				}
				set := map[string]bool{}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					id, ok := n.(*ast.Ident)
					if !ok {
						return true
					}
					switch o := info.Uses[id].(type) {
					case *types.Func:
						set[o.FullName()] = true
					case nil:
					default:
						if o.Pkg() != nil && o.Parent() == o.Pkg().Scope() {
							set[o.Pkg().Path()+"."+o.Name()] = true
						}
					}
					return true
				})
				for r := range set {
					g.refs[name] = append(g.refs[name], r)
				}
				sort.Strings(g.refs[name])
			}
		}
	}
	return g
}
