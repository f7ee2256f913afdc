// Command coreparams extracts Bitcoin Core's RPC parameter declarations
// from its C++ source into a JSON table, which the method tests compare
// descwallet's declarations with (testdata/core_rpc_params.json).
//
// It reads declarations only: the RPCHelpMan argument lists of every
// method (rpc/*.cpp, wallet/rpc/*.cpp, zmq/zmqrpc.cpp and any other file
// under src that declares one), the command tables that give each method
// its category, and bitcoin-cli's conversion table (rpc/client.cpp,
// vRPCConvertParams). For each parameter it records the name (with its
// aliases, as Core writes them: "verbosity|verbose"), the RPCArg type,
// whether it is optional, the skip_type_check and also_positional
// options, and its inner arguments (the members of objects, the elements
// of arrays, the options of an OBJ_NAMED_PARAMS).
//
// Usage, from the repository root, with Core's source tree at $CORE:
//
//	go run ./scripts/coreparams -src $CORE/src -o testdata/core_rpc_params.json
//
// The parser understands the shapes Core's declarations use: braced
// initializer lists, string literals joined by + or juxtaposition, the
// argument-list helpers (functions returning std::vector<RPCArg>, with
// their push_back additions), Cat<std::vector<RPCArg>>(a, b), and methods
// made by a helper taking the method name (bumpfee_helper("bumpfee")).
// Anything else is reported as an error rather than guessed.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Arg is one RPCArg as the table records it.
type Arg struct {
	Name           string `json:"name"`
	Type           string `json:"type"`
	Optional       bool   `json:"optional"`
	SkipTypeCheck  bool   `json:"skip_type_check,omitempty"`
	AlsoPositional bool   `json:"also_positional,omitempty"`
	Inner          []Arg  `json:"inner,omitempty"`
}

// Convert is one entry of bitcoin-cli's vRPCConvertParams.
type Convert struct {
	Index  int    `json:"index"`
	Name   string `json:"name"`
	Format string `json:"format"`
}

// Method is one RPC method.
type Method struct {
	Name     string    `json:"name"`
	Category string    `json:"category"`
	File     string    `json:"file"`
	Params   []Arg     `json:"params"`
	CLI      []Convert `json:"cli_convert,omitempty"`
}

// TypeCheck is one RPCTypeCheckObj call: the function it is in, the JSON
// type each member must have ("" for any), and its flags.
type TypeCheck struct {
	Function  string            `json:"function"`
	File      string            `json:"file"`
	Line      int               `json:"line"`
	AllowNull bool              `json:"allow_null"`
	Strict    bool              `json:"strict"`
	Fields    map[string]string `json:"fields"`
}

// Table is the output file.
type Table struct {
	Comment string   `json:"comment"`
	Methods []Method `json:"methods"`
	// TypeChecks are the RPCTypeCheckObj tables of option objects and
	// array elements, by the function that holds them.
	TypeChecks []TypeCheck `json:"type_checks"`
	// CLIOnly lists conversion entries of methods with no RPCHelpMan
	// found (none expected).
	CLIOnly map[string][]Convert `json:"cli_only,omitempty"`
}

func main() {
	src := flag.String("src", "", "Bitcoin Core's src directory")
	out := flag.String("o", "", "output file (stdout when empty)")
	flag.Parse()
	if *src == "" {
		fmt.Fprintln(os.Stderr, "usage: coreparams -src <core>/src [-o file]")
		os.Exit(2)
	}
	table, err := extract(*src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coreparams:", err)
		os.Exit(1)
	}
	data, err := json.MarshalIndent(table, "", " ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "coreparams:", err)
		os.Exit(1)
	}
	data = append(data, '\n')
	if *out == "" {
		os.Stdout.Write(data)
		return
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "coreparams:", err)
		os.Exit(1)
	}
}

// sourceFiles lists the .cpp files under src that declare RPC methods or
// command tables, test and bench code left out.
func sourceFiles(src string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			switch rel {
			case "test", "bench", "qt", "wallet/test", "ipc", "kernel":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".cpp") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s := string(data)
		if strings.Contains(s, "RPCHelpMan") || strings.Contains(s, "CRPCCommand") || strings.Contains(s, "vRPCConvertParams") || strings.Contains(s, "RPCTypeCheckObj") {
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// fileInfo is what one file declares.
type fileInfo struct {
	rel   string
	funcs map[string]*function // every function body, by name
}

// function is a parsed function definition.
type function struct {
	name   string
	ret    []token // the tokens before the name (its return type)
	params []node  // the parameter list's content
	body   []node  // the body's content
	file   string
}

func extract(src string) (*Table, error) {
	files, err := sourceFiles(src)
	if err != nil {
		return nil, err
	}
	funcs := map[string][]*function{}
	vars := map[string][]argVariable{}
	var registrations []registration
	var converts []convertEntry
	var checks []TypeCheck
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			return nil, err
		}
		toks, err := tokenize(string(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		nodes, err := group(toks)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		for _, f := range functions(nodes) {
			f.file = rel
			funcs[f.name] = append(funcs[f.name], f)
			tcs, err := typeChecks(f)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", rel, f.name, err)
			}
			checks = append(checks, tcs...)
		}
		for name, init := range argVariables(nodes) {
			vars[name] = append(vars[name], argVariable{file: rel, init: init})
		}
		registrations = append(registrations, commandTables(nodes, rel)...)
		if rel == filepath.Join("rpc", "client.cpp") {
			converts, err = convertTable(nodes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", rel, err)
			}
		}
	}
	x := &extractor{funcs: funcs, vars: vars}
	table := &Table{Comment: "Bitcoin Core's RPC parameter declarations (RPCHelpMan argument lists, command tables and bitcoin-cli's vRPCConvertParams), extracted by scripts/coreparams from Core's src/. Regenerate with: go run ./scripts/coreparams -src <core>/src -o testdata/core_rpc_params.json"}
	seen := map[string]bool{}
	for _, r := range registrations {
		fs := funcs[r.fn]
		if len(fs) == 0 {
			return nil, fmt.Errorf("%s: command %s: no function %s", r.file, r.category, r.fn)
		}
		f := pickOverload(fs, r.file, 0)
		name, params, err := x.method(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", f.file, r.fn, err)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		if params == nil {
			params = []Arg{}
		}
		table.Methods = append(table.Methods, Method{Name: name, Category: r.category, File: filepath.ToSlash(f.file), Params: params})
	}
	table.TypeChecks = checks
	sort.Slice(table.Methods, func(i, j int) bool { return table.Methods[i].Name < table.Methods[j].Name })
	index := map[string]int{}
	for i, m := range table.Methods {
		index[m.Name] = i
	}
	for _, c := range converts {
		i, ok := index[c.method]
		if !ok {
			if table.CLIOnly == nil {
				table.CLIOnly = map[string][]Convert{}
			}
			table.CLIOnly[c.method] = append(table.CLIOnly[c.method], c.Convert)
			continue
		}
		table.Methods[i].CLI = append(table.Methods[i].CLI, c.Convert)
	}
	return table, nil
}

// pickFunction prefers the definition in the given file.
func pickFunction(fs []*function, file string) *function {
	for _, f := range fs {
		if f.file == file {
			return f
		}
	}
	return fs[0]
}

// pickOverload picks, among overloads, the definition in file taking n
// arguments (parameters with defaults counted as optional).
func pickOverload(fs []*function, file string, n int) *function {
	var match []*function
	for _, f := range fs {
		params := splitCommas(f.params)
		if len(params) == 1 && len(params[0]) == 1 && params[0][0].ident() == "void" {
			params = nil
		}
		required := 0
		for _, p := range params {
			hasDefault := false
			for _, t := range p {
				hasDefault = hasDefault || t.isTok("=")
			}
			if !hasDefault {
				required++
			}
		}
		if required <= n && n <= len(params) {
			match = append(match, f)
		}
	}
	if len(match) == 0 {
		return pickFunction(fs, file)
	}
	return pickFunction(match, file)
}

// ---------------------------------------------------------------------
// Tokens.

type tokKind int

const (
	tIdent tokKind = iota + 1
	tString
	tChar
	tNumber
	tPunct
)

type token struct {
	kind tokKind
	text string // identifiers, numbers, punctuation; the decoded value of a string
	line int
}

func (t token) is(s string) bool { return t.kind == tPunct && t.text == s }

// tokenize splits C++ text into tokens, dropping comments and
// preprocessor lines.
func tokenize(s string) ([]token, error) {
	var out []token
	line := 1
	atLineStart := true
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
			atLineStart = true
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '#' && atLineStart:
			// Preprocessor line, with continuations.
			for i < len(s) && s[i] != '\n' {
				if s[i] == '\\' && i+1 < len(s) && s[i+1] == '\n' {
					line++
					i++
				}
				i++
			}
			continue
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated comment", line)
			}
			line += strings.Count(s[i:i+2+end], "\n")
			i += end + 4
			continue
		}
		atLineStart = false
		switch {
		case c == 'R' && strings.HasPrefix(s[i:], `R"`):
			// Raw string R"delim(...)delim".
			open := strings.IndexByte(s[i:], '(')
			if open < 0 {
				return nil, fmt.Errorf("line %d: bad raw string", line)
			}
			delim := s[i+2 : i+open]
			closing := ")" + delim + `"`
			end := strings.Index(s[i+open+1:], closing)
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated raw string", line)
			}
			body := s[i+open+1 : i+open+1+end]
			out = append(out, token{tString, body, line})
			line += strings.Count(body, "\n")
			i += open + 1 + end + len(closing)
		case c == '"':
			j := i + 1
			var b strings.Builder
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' && j+1 < len(s) {
					switch s[j+1] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(s[j+1])
					}
					j += 2
					continue
				}
				if s[j] == '\n' {
					return nil, fmt.Errorf("line %d: newline in string", line)
				}
				b.WriteByte(s[j])
				j++
			}
			if j >= len(s) {
				return nil, fmt.Errorf("line %d: unterminated string", line)
			}
			out = append(out, token{tString, b.String(), line})
			i = j + 1
		case c == '\'':
			j := i + 1
			for j < len(s) && s[j] != '\'' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, token{tChar, s[i : j+1], line})
			i = j + 1
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			// A string literal prefix (u8"...", L"...").
			if j < len(s) && s[j] == '"' && (s[i:j] == "u8" || s[i:j] == "L" || s[i:j] == "u" || s[i:j] == "U") {
				i = j
				continue
			}
			out = append(out, token{tIdent, s[i:j], line})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (isIdentChar(s[j]) || s[j] == '.' || s[j] == '\'') {
				j++
			}
			out = append(out, token{tNumber, s[i:j], line})
			i = j
		default:
			p := string(c)
			for _, op := range []string{"::", "->", "&&", "||", "==", "!=", "<=", ">=", "+=", "-=", "<<", "++", "--", "..."} {
				if strings.HasPrefix(s[i:], op) {
					p = op
					break
				}
			}
			out = append(out, token{tPunct, p, line})
			i += len(p)
		}
	}
	return out, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// ---------------------------------------------------------------------
// Bracket tree.

// node is a token or a bracketed group of nodes.
type node struct {
	tok   token
	open  string // "(", "{" or "[" for a group; "" for a token
	kids  []node
	start int // line of a group's opening bracket
}

func (n node) isGroup(open string) bool { return n.open == open }
func (n node) isTok(s string) bool      { return n.open == "" && n.tok.is(s) }
func (n node) ident() string {
	if n.open == "" && n.tok.kind == tIdent {
		return n.tok.text
	}
	return ""
}

// group nests the tokens by (), {} and [].
func group(toks []token) ([]node, error) {
	closer := map[string]string{"(": ")", "{": "}", "[": "]"}
	type frame struct {
		open string
		line int
		kids []node
	}
	stack := []frame{{}}
	for _, t := range toks {
		if t.kind == tPunct {
			if _, ok := closer[t.text]; ok {
				stack = append(stack, frame{open: t.text, line: t.line})
				continue
			}
			if t.text == ")" || t.text == "}" || t.text == "]" {
				top := stack[len(stack)-1]
				if len(stack) == 1 || closer[top.open] != t.text {
					return nil, fmt.Errorf("line %d: unbalanced %s", t.line, t.text)
				}
				stack = stack[:len(stack)-1]
				parent := &stack[len(stack)-1]
				parent.kids = append(parent.kids, node{open: top.open, kids: top.kids, start: top.line})
				continue
			}
		}
		top := &stack[len(stack)-1]
		top.kids = append(top.kids, node{tok: t})
	}
	if len(stack) != 1 {
		return nil, fmt.Errorf("line %d: unclosed %s", stack[len(stack)-1].line, stack[len(stack)-1].open)
	}
	return stack[0].kids, nil
}

// splitCommas splits a group's content at its top-level commas. A '<'
// ... '>' template argument list is not split (Cat<std::vector<RPCArg>>).
func splitCommas(kids []node) [][]node {
	var out [][]node
	var cur []node
	angle := 0
	for i, k := range kids {
		switch {
		case k.isTok("<") && i > 0 && kids[i-1].ident() != "":
			// Only template brackets after a name; comparisons in
			// argument lists do not occur in declarations.
			if isTemplateName(kids[i-1].ident()) {
				angle++
			}
		case k.isTok(">") && angle > 0:
			angle--
		case k.isTok(">>") && angle > 0:
			angle -= 2
		case k.isTok(",") && angle == 0:
			out = append(out, cur)
			cur = nil
			continue
		}
		cur = append(cur, k)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func isTemplateName(s string) bool {
	switch s {
	case "Cat", "vector", "optional", "map", "pair", "set", "span", "array", "unordered_map", "static_cast", "variant", "get":
		return true
	}
	return false
}

// functions finds function definitions at any depth of namespaces: a
// name, a parameter group and a body group.
func functions(nodes []node) []*function {
	var out []*function
	var walk func(kids []node)
	walk = func(kids []node) {
		for i := 0; i+2 < len(kids); i++ {
			if kids[i].ident() == "namespace" {
				// namespace [name] { ... }
				for j := i + 1; j < len(kids) && j <= i+2; j++ {
					if kids[j].isGroup("{") {
						walk(kids[j].kids)
						break
					}
				}
				continue
			}
			name := kids[i].ident()
			if name == "" || !kids[i+1].isGroup("(") {
				continue
			}
			j := i + 2
			// Qualifiers between the parameter list and the body.
			for j < len(kids) && (kids[j].ident() == "const" || kids[j].ident() == "noexcept" || kids[j].ident() == "override") {
				j++
			}
			if j >= len(kids) || !kids[j].isGroup("{") {
				continue
			}
			// The return type: tokens back to the previous ; or }.
			var ret []token
			for k := i - 1; k >= 0; k-- {
				if kids[k].open != "" || kids[k].isTok(";") {
					break
				}
				ret = append([]token{kids[k].tok}, ret...)
			}
			if len(ret) == 0 {
				continue // a call or a control statement, not a definition
			}
			out = append(out, &function{name: name, ret: ret, params: kids[i+1].kids, body: kids[j].kids})
			i = j
		}
	}
	walk(nodes)
	return out
}

func retText(ret []token) string {
	var b strings.Builder
	for _, t := range ret {
		b.WriteString(t.text)
	}
	return b.String()
}

// ---------------------------------------------------------------------
// Command tables.

type registration struct {
	category, fn, file string
}

// commandTables finds `CRPCCommand name[]{ {"category", &fn}, ... }`.
func commandTables(nodes []node, rel string) []registration {
	var out []registration
	var walk func(kids []node)
	walk = func(kids []node) {
		for i, k := range kids {
			if k.open != "" {
				walk(k.kids)
				continue
			}
			if k.ident() != "CRPCCommand" {
				continue
			}
			// CRPCCommand name [ ] { ... } (the [] a group of its own).
			if i+3 < len(kids) && kids[i+1].ident() != "" && kids[i+2].isGroup("[") && kids[i+3].isGroup("{") {
				for _, el := range splitCommas(kids[i+3].kids) {
					if len(el) != 1 || !el[0].isGroup("{") {
						continue
					}
					parts := splitCommas(el[0].kids)
					if len(parts) != 2 || len(parts[0]) != 1 || parts[0][0].tok.kind != tString {
						continue
					}
					fn := ""
					for _, n := range parts[1] {
						if id := n.ident(); id != "" {
							fn = id
						}
					}
					out = append(out, registration{category: parts[0][0].tok.text, fn: fn, file: rel})
				}
			}
		}
	}
	walk(nodes)
	return out
}

// ---------------------------------------------------------------------
// bitcoin-cli's conversion table.

type convertEntry struct {
	method string
	Convert
}

func convertTable(nodes []node) ([]convertEntry, error) {
	for i, k := range nodes {
		if k.ident() != "vRPCConvertParams" || i+2 >= len(nodes) || !nodes[i+1].isGroup("[") {
			continue
		}
		j := i + 2
		for j < len(nodes) && !nodes[j].isGroup("{") {
			j++
		}
		if j >= len(nodes) {
			break
		}
		var out []convertEntry
		for _, el := range splitCommas(nodes[j].kids) {
			if len(el) != 1 || !el[0].isGroup("{") {
				return nil, fmt.Errorf("line %d: unexpected conversion entry", el[0].start)
			}
			parts := splitCommas(el[0].kids)
			if len(parts) < 3 || parts[0][0].tok.kind != tString || parts[1][0].tok.kind != tNumber || parts[2][0].tok.kind != tString {
				return nil, fmt.Errorf("line %d: unexpected conversion entry", el[0].start)
			}
			idx, err := strconv.Atoi(parts[1][0].tok.text)
			if err != nil {
				return nil, err
			}
			format := "JSON"
			if len(parts) > 3 {
				last := parts[3][len(parts[3])-1]
				format = last.ident()
			}
			out = append(out, convertEntry{parts[0][0].tok.text, Convert{idx, parts[2][0].tok.text, format}})
		}
		return out, nil
	}
	return nil, fmt.Errorf("no vRPCConvertParams table")
}

// ---------------------------------------------------------------------
// RPCHelpMan declarations.

type extractor struct {
	funcs map[string][]*function
	vars  map[string][]argVariable
}

// argVariable is a variable holding one RPCArg
// (`static const auto name = RPCArg{...};` or `RPCArg name{...};`).
type argVariable struct {
	file string
	init node // the braced initializer
}

// argVariables finds the RPCArg variables of a file, at any depth of
// namespaces.
func argVariables(nodes []node) map[string]node {
	out := map[string]node{}
	var walk func(kids []node)
	walk = func(kids []node) {
		for i := 0; i < len(kids); i++ {
			if kids[i].ident() == "namespace" {
				for j := i + 1; j < len(kids) && j <= i+2; j++ {
					if kids[j].isGroup("{") {
						walk(kids[j].kids)
						break
					}
				}
				continue
			}
			// name = RPCArg{...}
			if i+3 < len(kids) && kids[i].ident() != "" && kids[i+1].isTok("=") && kids[i+2].ident() == "RPCArg" && kids[i+3].isGroup("{") {
				out[kids[i].ident()] = kids[i+3]
			}
			// RPCArg name{...}
			if i+2 < len(kids) && kids[i].ident() == "RPCArg" && kids[i+1].ident() != "" && kids[i+2].isGroup("{") {
				out[kids[i+1].ident()] = kids[i+2]
			}
		}
	}
	walk(nodes)
	return out
}

// method reads the RPCHelpMan a function returns: its name and arguments.
func (x *extractor) method(f *function) (string, []Arg, error) {
	return x.methodWith(f, nil)
}

// methodWith reads f's RPCHelpMan with bindings of f's string parameters
// (a helper called with the method's name).
func (x *extractor) methodWith(f *function, bind map[string]string) (string, []Arg, error) {
	help := findHelpMan(f.body)
	if help == nil {
		// A function returning another's RPCHelpMan:
		// `return helper("name");`.
		for i := 0; i+2 < len(f.body); i++ {
			if f.body[i].ident() != "return" {
				continue
			}
			callee := f.body[i+1].ident()
			if callee == "" || !f.body[i+2].isGroup("(") {
				continue
			}
			hs := x.funcs[callee]
			if len(hs) == 0 {
				return "", nil, fmt.Errorf("return of unknown %s", callee)
			}
			args := splitCommas(f.body[i+2].kids)
			h := pickOverload(hs, f.file, len(args))
			b := map[string]string{}
			params := splitCommas(h.params)
			for k, a := range args {
				if k < len(params) && len(a) == 1 && a[0].tok.kind == tString {
					last := params[k][len(params[k])-1]
					b[last.ident()] = a[0].tok.text
				}
			}
			return x.methodWith(h, b)
		}
		return "", nil, fmt.Errorf("no RPCHelpMan")
	}
	parts := splitCommas(help)
	if len(parts) < 3 {
		return "", nil, fmt.Errorf("RPCHelpMan with %d parts", len(parts))
	}
	var name string
	switch n := parts[0]; {
	case len(n) == 1 && n[0].tok.kind == tString:
		name = n[0].tok.text
	case len(n) == 1 && n[0].ident() != "" && bind[n[0].ident()] != "":
		name = bind[n[0].ident()]
	default:
		return "", nil, fmt.Errorf("RPCHelpMan name is not a literal")
	}
	args, err := x.argList(parts[2], f)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", name, err)
	}
	return name, args, nil
}

// findHelpMan returns the content of the first RPCHelpMan{...} (or
// RPCHelpMan(...)) in a body.
func findHelpMan(kids []node) []node {
	for i, k := range kids {
		if k.ident() == "RPCHelpMan" && i+1 < len(kids) && (kids[i+1].isGroup("{") || kids[i+1].isGroup("(")) {
			return kids[i+1].kids
		}
		if k.open != "" {
			if h := findHelpMan(k.kids); h != nil {
				return h
			}
		}
	}
	return nil
}

// argList evaluates an expression that yields a std::vector<RPCArg>.
func (x *extractor) argList(expr []node, ctx *function) ([]Arg, error) {
	// std::vector<RPCArg>{...} or a bare {...}.
	expr = stripTypePrefix(expr)
	if len(expr) == 1 && expr[0].isGroup("{") {
		var out []Arg
		for _, el := range splitCommas(expr[0].kids) {
			a, err := x.arg(el, ctx)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
		return out, nil
	}
	// Cat<...>(a, b).
	if len(expr) >= 2 && expr[0].ident() == "Cat" && expr[len(expr)-1].isGroup("(") {
		var out []Arg
		for _, part := range splitCommas(expr[len(expr)-1].kids) {
			as, err := x.argList(part, ctx)
			if err != nil {
				return nil, err
			}
			out = append(out, as...)
		}
		return out, nil
	}
	// A helper call: Name(...).
	if len(expr) == 2 && expr[0].ident() != "" && expr[1].isGroup("(") {
		if len(expr[1].kids) > 0 {
			// Its arguments would change what it returns.
			return nil, fmt.Errorf("argument helper %s called with arguments", expr[0].ident())
		}
		return x.helper(expr[0].ident(), ctx)
	}
	if len(expr) == 1 && expr[0].ident() != "" {
		return nil, fmt.Errorf("argument list held in variable %s", expr[0].ident())
	}
	return nil, fmt.Errorf("argument list of unknown shape at line %d", firstLine(expr))
}

// stripTypePrefix drops a leading `std::vector<RPCArg>` type name.
func stripTypePrefix(expr []node) []node {
	for i, n := range expr {
		if n.isGroup("{") && i > 0 {
			for _, m := range expr[:i] {
				if m.open != "" {
					return expr
				}
			}
			return expr[i:]
		}
	}
	return expr
}

func firstLine(ns []node) int {
	for _, n := range ns {
		if n.open != "" {
			return n.start
		}
		return n.tok.line
	}
	return 0
}

// helper evaluates a function returning std::vector<RPCArg>: its return
// expression, or the vector variable it builds and returns, with every
// push_back (conditions taken as true, the parameters' defaults).
func (x *extractor) helper(name string, ctx *function) ([]Arg, error) {
	hs := x.funcs[name]
	if len(hs) == 0 {
		return nil, fmt.Errorf("unknown argument helper %s", name)
	}
	h := pickOverload(hs, ctx.file, 0)
	if !strings.Contains(retText(h.ret), "RPCArg") {
		return nil, fmt.Errorf("%s does not return RPCArgs", name)
	}
	stmts := statements(h.body)
	for _, st := range stmts {
		if len(st) < 2 || st[0].ident() != "return" {
			continue
		}
		rest := st[1:]
		if len(rest) == 1 && rest[0].ident() != "" {
			return x.vectorVar(rest[0].ident(), h)
		}
		return x.argList(rest, h)
	}
	return nil, fmt.Errorf("%s: no return", name)
}

// statements splits a body into statements at top-level semicolons; the
// content of if/else blocks is flattened in.
func statements(body []node) [][]node {
	var out [][]node
	var cur []node
	for i := 0; i < len(body); i++ {
		n := body[i]
		if n.ident() == "if" && i+2 < len(body) && body[i+1].isGroup("(") && body[i+2].isGroup("{") {
			out = append(out, statements(body[i+2].kids)...)
			i += 2
			continue
		}
		if n.isTok(";") {
			out = append(out, cur)
			cur = nil
			continue
		}
		cur = append(cur, n)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// vectorVar evaluates `std::vector<RPCArg> v = {...};` and the
// `v.push_back({...})` statements of h.
func (x *extractor) vectorVar(v string, h *function) ([]Arg, error) {
	var out []Arg
	found := false
	for _, st := range statements(h.body) {
		for i, n := range st {
			if n.ident() == v && i+1 < len(st) && st[i+1].isTok("=") && !found {
				as, err := x.argList(st[i+2:], h)
				if err != nil {
					return nil, err
				}
				out = append(out, as...)
				found = true
				break
			}
			if n.ident() == v && i+3 < len(st) && st[i+1].isTok(".") && (st[i+2].ident() == "push_back" || st[i+2].ident() == "emplace_back") && st[i+3].isGroup("(") {
				inner := st[i+3].kids
				a, err := x.arg(inner, h)
				if err != nil {
					return nil, err
				}
				out = append(out, a)
				break
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("%s: no initializer of %s", h.name, v)
	}
	return out, nil
}

// arg reads one RPCArg initializer: {name, type, fallback, description
// [, inner] [, options]}.
func (x *extractor) arg(el []node, ctx *function) (Arg, error) {
	el = stripTypePrefix(el)
	if len(el) == 1 && el[0].ident() != "" {
		vs := x.vars[el[0].ident()]
		if len(vs) == 0 {
			return Arg{}, fmt.Errorf("unknown argument variable %s", el[0].ident())
		}
		v := vs[0]
		for _, c := range vs {
			if c.file == ctx.file {
				v = c
			}
		}
		el = []node{v.init}
	}
	if len(el) != 1 || !el[0].isGroup("{") {
		return Arg{}, fmt.Errorf("argument at line %d is not a braced initializer", firstLine(el))
	}
	line := el[0].start
	parts := splitCommas(el[0].kids)
	if len(parts) < 4 {
		return Arg{}, fmt.Errorf("argument at line %d has %d parts", line, len(parts))
	}
	var a Arg
	if len(parts[0]) != 1 || parts[0][0].tok.kind != tString {
		return Arg{}, fmt.Errorf("argument at line %d: name is not a literal", line)
	}
	a.Name = parts[0][0].tok.text
	typ := parts[1]
	if len(typ) < 5 || typ[0].ident() != "RPCArg" || typ[2].ident() != "Type" {
		return Arg{}, fmt.Errorf("argument %q at line %d: unexpected type", a.Name, line)
	}
	a.Type = typ[len(typ)-1].ident()
	fb := parts[2]
	switch {
	case len(fb) >= 5 && fb[0].ident() == "RPCArg" && fb[2].ident() == "Optional":
		a.Optional = fb[4].ident() != "NO"
	case len(fb) >= 3 && fb[0].ident() == "RPCArg" && (fb[2].ident() == "Default" || fb[2].ident() == "DefaultHint"):
		a.Optional = true
	default:
		return Arg{}, fmt.Errorf("argument %q at line %d: unexpected fallback", a.Name, line)
	}
	for _, p := range parts[4:] {
		if len(p) >= 2 && p[0].ident() == "RPCArgOptions" && p[1].isGroup("{") {
			for _, opt := range splitCommas(p[1].kids) {
				if len(opt) == 4 && opt[0].isTok(".") && opt[2].isTok("=") {
					switch opt[1].ident() {
					case "skip_type_check":
						a.SkipTypeCheck = opt[3].ident() == "true"
					case "also_positional":
						a.AlsoPositional = opt[3].ident() == "true"
					}
				}
			}
			continue
		}
		inner, err := x.argList(p, ctx)
		if err != nil {
			return Arg{}, fmt.Errorf("argument %q: %w", a.Name, err)
		}
		a.Inner = inner
	}
	return a, nil
}

// ---------------------------------------------------------------------
// RPCTypeCheckObj tables.

// typeChecks finds the RPCTypeCheckObj(obj, {{"key", UniValueType(...)},
// ...}[, fAllowNull[, fStrict]]) calls in a function body.
func typeChecks(f *function) ([]TypeCheck, error) {
	var out []TypeCheck
	var walk func(kids []node) error
	walk = func(kids []node) error {
		for i, k := range kids {
			if k.open != "" {
				if err := walk(k.kids); err != nil {
					return err
				}
				continue
			}
			if k.ident() != "RPCTypeCheckObj" || i+1 >= len(kids) || !kids[i+1].isGroup("(") {
				continue
			}
			args := splitCommas(kids[i+1].kids)
			if len(args) < 2 || len(args[1]) != 1 || !args[1][0].isGroup("{") {
				return fmt.Errorf("line %d: RPCTypeCheckObj of unknown shape", k.tok.line)
			}
			tc := TypeCheck{Function: f.name, File: filepath.ToSlash(f.file), Line: k.tok.line, Fields: map[string]string{}}
			flag := func(a []node) bool { return len(a) == 1 && a[0].ident() == "true" }
			if len(args) > 2 {
				tc.AllowNull = flag(args[2])
			}
			if len(args) > 3 {
				tc.Strict = flag(args[3])
			}
			for _, e := range splitCommas(args[1][0].kids) {
				if len(e) != 1 || !e[0].isGroup("{") {
					return fmt.Errorf("line %d: RPCTypeCheckObj entry of unknown shape", k.tok.line)
				}
				parts := splitCommas(e[0].kids)
				if len(parts) != 2 || len(parts[0]) != 1 || parts[0][0].tok.kind != tString {
					return fmt.Errorf("line %d: RPCTypeCheckObj entry of unknown shape", k.tok.line)
				}
				v := parts[1]
				if len(v) != 2 || v[0].ident() != "UniValueType" || !v[1].isGroup("(") {
					return fmt.Errorf("line %d: RPCTypeCheckObj type of unknown shape", k.tok.line)
				}
				typ := ""
				if in := v[1].kids; len(in) > 0 {
					switch in[len(in)-1].ident() {
					case "VSTR":
						typ = "string"
					case "VNUM":
						typ = "number"
					case "VBOOL":
						typ = "bool"
					case "VOBJ":
						typ = "object"
					case "VARR":
						typ = "array"
					case "VNULL":
						typ = "null"
					default:
						return fmt.Errorf("line %d: unknown UniValue type", k.tok.line)
					}
				}
				tc.Fields[parts[0][0].tok.text] = typ
			}
			out = append(out, tc)
		}
		return nil
	}
	return out, walk(f.body)
}
