package archtest

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/musig"
	"github.com/descwallet/descwallet/internal/pgstore"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/store"
	"github.com/descwallet/descwallet/internal/wallet"
)

// TestSameNameKindsStayDistinct checks, over the real packages, that an
// error kind never matches another package's kind of the same name: the RPC
// error table maps by errors.Is and its first matching row wins, so a
// collision would answer one package's failure with another's code.
func TestSameNameKindsStayDistinct(t *testing.T) {
	pairs := []struct {
		name string
		a, b error
	}{
		{"chain/wallet ErrNotFound", chain.ErrNotFound, wallet.ErrNotFound},
		{"store/wallet ErrNotFound", store.ErrNotFound, wallet.ErrNotFound},
		{"store/pgstore ErrNotFound", store.ErrNotFound, pgstore.ErrNotFound},
		{"script/musig ErrInvalidPubKey", script.ErrInvalidPubKey, musig.ErrInvalidPubKey},
		{"descriptor/sign ErrInvalidKey", descriptor.ErrInvalidKey, sign.ErrInvalidKey},
	}
	for _, p := range pairs {
		if p.a.Error() != p.b.Error() {
			t.Fatalf("%s: the kinds are no longer named alike (%q, %q); pick another pair", p.name, p.a, p.b)
		}
		if errors.Is(p.a, p.b) || errors.Is(p.b, p.a) {
			t.Errorf("%s: the kinds match each other", p.name)
		}
	}
	// And through the errors the packages return.
	ce := &chain.Error{Kind: chain.ErrNotFound, Description: "block not found"}
	if !errors.Is(ce, chain.ErrNotFound) || errors.Is(ce, wallet.ErrNotFound) {
		t.Error("a chain not-found error matches wallet.ErrNotFound, or not its own kind")
	}
	se := &script.Error{Kind: script.ErrInvalidPubKey, Description: "x"}
	if !errors.Is(se, script.ErrInvalidPubKey) || errors.Is(se, musig.ErrInvalidPubKey) {
		t.Error("a script error matches musig.ErrInvalidPubKey, or not its own kind")
	}
}

// TestOneErrorKindPattern fails when a package outside errkind declares its
// own error-kind machinery instead of aliasing errkind's types: a defined
// type named ErrorKind, a string or integer type with an Error method (a
// kind that errors.Is compares against), or a struct with an Error method
// and a Kind field (an error carrying such a kind). Aliases of
// errkind.Kind and errkind.Error are what the house pattern declares, so
// they pass; other error types (the RPC error with Core's numeric code, a
// decoder's message error) have no Kind field and pass too.
func TestOneErrorKindPattern(t *testing.T) {
	root := moduleRoot(t)
	// Per package directory: the receiver types of Error() string methods,
	// and the defined (non-alias) types, with where they are declared.
	type decl struct {
		pos  string
		spec *ast.TypeSpec
	}
	errMethods := map[string]map[string]bool{}
	types := map[string][]decl{}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") || rel == "errkind" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		files++
		dir := filepath.ToSlash(filepath.Dir(rel))
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, dcl := range f.Decls {
			switch dcl := dcl.(type) {
			case *ast.FuncDecl:
				if dcl.Recv == nil || dcl.Name.Name != "Error" || len(dcl.Recv.List) != 1 ||
					dcl.Type.Params.NumFields() != 0 || dcl.Type.Results.NumFields() != 1 {
					continue
				}
				if res, ok := dcl.Type.Results.List[0].Type.(*ast.Ident); !ok || res.Name != "string" {
					continue
				}
				if name := receiverName(dcl.Recv.List[0].Type); name != "" {
					if errMethods[dir] == nil {
						errMethods[dir] = map[string]bool{}
					}
					errMethods[dir][name] = true
				}
			case *ast.GenDecl:
				for _, s := range dcl.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && !ts.Assign.IsValid() {
						types[dir] = append(types[dir], decl{fset.Position(ts.Pos()).String(), ts})
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("only %d files checked; is %s the module root?", files, root)
	}
	const fix = "alias errkind.Kind[tag] and errkind.Error[tag] instead (see the errkind package doc)"
	for dir, decls := range types {
		for _, d := range decls {
			name := d.spec.Name.Name
			if name == "ErrorKind" {
				t.Errorf("%s: %s declares its own ErrorKind type; %s", d.pos, dir, fix)
				continue
			}
			if !errMethods[dir][name] {
				continue
			}
			switch u := d.spec.Type.(type) {
			case *ast.Ident:
				if isKindBase(u.Name) {
					t.Errorf("%s: %s.%s is an error-kind type of its own (a %s with an Error method); %s", d.pos, dir, name, u.Name, fix)
				}
			case *ast.StructType:
				for _, fld := range u.Fields.List {
					for _, n := range fld.Names {
						if n.Name == "Kind" {
							t.Errorf("%s: %s.%s is an error type with a Kind field of its own; %s", d.pos, dir, name, fix)
						}
					}
				}
			}
		}
	}
}

// receiverName returns the type name of a method receiver (T, *T, T[X]).
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// isKindBase reports whether a type of that underlying type, given an Error
// method, is a kind: a string or integer naming a failure.
func isKindBase(name string) bool {
	switch name {
	case "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return true
	}
	return false
}
