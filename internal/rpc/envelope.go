package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"
)

// This file is the JSON-RPC envelope: request objects, batches, named
// parameters, argument checks, dispatch and reply shapes, each as Core's
// src/httprpc.cpp, src/rpc/request.cpp and src/rpc/server.cpp behave.

// call is the parsed state of one request object. As in Core, one call is
// reused across the elements of a batch: an element that is not an object
// leaves the previous element's id and version in place.
type call struct {
	id     []byte // raw id text, nil when the request has no id
	v2     bool   // JSON-RPC 2.0
	method []byte // raw method string token
	params []byte // raw params value (array or object), nil for none
}

// reset puts the call in its initial state: id null, legacy.
func (c *call) reset() {
	c.id = nullText
	c.v2 = false
	c.method = nil
	c.params = nil
}

// notification reports whether no reply is due (2.0 without id).
func (c *call) notification() bool { return c.v2 && c.id == nil }

var nullText = []byte("null")

// Bounds of one request, beyond anything a method accepts (Core has
// none): a handler decoding its parameters spends up to about 40 bytes per
// JSON value, and a batch reply up to about 80 bytes per element, so that
// a 32 MiB body of tiny values would otherwise grow into gigabytes. Past a
// small count, values and batch elements must also be as long as real
// ones are (a txid, an address, an object of a few fields), which keeps
// what a request allocates within a few times its size.
const (
	// MaxParamValues bounds the JSON values (array elements and object
	// members, at every depth) in one call's params. A transaction's
	// inputs and outputs, or an import of as many descriptors, stay far
	// below it.
	MaxParamValues = 1 << 18
	// MaxBatch bounds the requests of one batch.
	MaxBatch = 1 << 16
	// freeItems values or batch elements are allowed whatever their
	// size; each one beyond needs paramBytesPerValue bytes of params text
	// (batchBytesPerElement of batch text).
	freeItems            = 4096
	paramBytesPerValue   = 16
	batchBytesPerElement = 16
)

// paramValuesLimit is how many values params of n bytes may hold.
func paramValuesLimit(n int) int { return min(MaxParamValues, freeItems+n/paramBytesPerValue) }

// batchLimit is how many requests a batch of n bytes may hold.
func batchLimit(n int) int { return min(MaxBatch, freeItems+n/batchBytesPerElement) }

// tooLarge is the -32600 refusal of params or a batch over its limit.
func tooLarge(what string, limit int, unit string) *Error {
	return &Error{CodeInvalidRequest, what + " too large: more than " + strconv.Itoa(limit) + " " + unit}
}

// Request-validation errors (-32600).
var (
	errInvalidRequest = &Error{CodeInvalidRequest, "Invalid Request object"}
	errVersionType    = &Error{CodeInvalidRequest, "jsonrpc field must be a string"}
	errVersion        = &Error{CodeInvalidRequest, "JSON-RPC version not supported"}
	errMissingMethod  = &Error{CodeInvalidRequest, "Missing method"}
	errMethodType     = &Error{CodeInvalidRequest, "Method must be a string"}
	errParamsType     = &Error{CodeInvalidRequest, "Params must be an array or object"}
	errMethodNotFound = &Error{CodeMethodNotFound, "Method not found"}
	errParse          = &Error{CodeParseError, "Parse error"}
	errTopLevel       = &Error{CodeParseError, "Top-level object parse error"}
)

// keyIs reports whether the raw key token names key.
func keyIs(tok []byte, key string) bool {
	body := tok[1 : len(tok)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body) == key
	}
	s, _ := unquote(tok)
	return s == key
}

// members iterates over the members of a validated object.
type members struct {
	data []byte
	i    int
}

func newMembers(obj []byte) members { return members{data: obj, i: 1} }

// next returns the next key token and value span.
func (m *members) next() (key, val []byte, ok bool) {
	i := skipSpace(m.data, m.i)
	if i < len(m.data) && m.data[i] == ',' {
		i = skipSpace(m.data, i+1)
	}
	if i >= len(m.data) || m.data[i] != '"' {
		return nil, nil, false
	}
	ke, _ := scanString(m.data, i)
	key = m.data[i:ke]
	i = skipSpace(m.data, ke)
	i = skipSpace(m.data, i+1) // ':'
	ve, _ := scanValue(m.data, i, 0)
	val = m.data[i:ve]
	m.i = ve
	return key, val, true
}

// elements iterates over the elements of a validated array.
type elements struct {
	data []byte
	i    int
}

func newElements(arr []byte) elements { return elements{data: arr, i: 1} }

func (e *elements) next() ([]byte, bool) {
	i := skipSpace(e.data, e.i)
	if i < len(e.data) && e.data[i] == ',' {
		i = skipSpace(e.data, i+1)
	}
	if i >= len(e.data) || e.data[i] == ']' {
		return nil, false
	}
	end, _ := scanValue(e.data, i, 0)
	e.i = end
	return e.data[i:end], true
}

// parse reads one request object (Core's JSONRPCRequest::parse). The id is
// taken before the version and the version before the method, so errors
// carry whatever was read so far.
func (c *call) parse(v []byte) *Error {
	if len(v) == 0 || v[0] != '{' {
		return errInvalidRequest
	}
	var id, version, method, params []byte
	var haveID bool
	it := newMembers(v)
	for {
		k, val, ok := it.next()
		if !ok {
			break
		}
		// The first occurrence of a key wins.
		switch {
		case !haveID && keyIs(k, "id"):
			id, haveID = val, true
		case version == nil && keyIs(k, "jsonrpc"):
			version = val
		case method == nil && keyIs(k, "method"):
			method = val
		case params == nil && keyIs(k, "params"):
			params = val
		}
	}
	c.id = id // nil when absent
	c.v2 = false
	c.method = nil
	c.params = nil
	if version != nil && version[0] != 'n' {
		if version[0] != '"' {
			return errVersionType
		}
		switch s, _ := unquote(version); s {
		case "1.0":
		case "2.0":
			c.v2 = true
		default:
			return errVersion
		}
	}
	if method == nil || method[0] == 'n' {
		return errMissingMethod
	}
	if method[0] != '"' {
		return errMethodType
	}
	c.method = method
	switch {
	case params == nil || params[0] == 'n':
	case params[0] == '[' || params[0] == '{':
		c.params = params
	default:
		return errParamsType
	}
	return nil
}

// httpStatus is Core's HTTP status for an error reply to a legacy request.
func httpStatus(code Code) int {
	switch code {
	case CodeInvalidRequest:
		return 400
	case CodeMethodNotFound:
		return 404
	}
	return 500
}

// appendReply appends one reply object in the call's shape. result is the
// already encoded result, used when e is nil.
func appendReplyHead(dst []byte, c *call) []byte {
	if c.v2 {
		return append(dst, `{"jsonrpc":"2.0","result":`...)
	}
	return append(dst, `{"result":`...)
}

func appendReplyTail(dst []byte, c *call) []byte {
	if !c.v2 {
		dst = append(dst, `,"error":null`...)
	}
	return appendID(dst, c)
}

func appendID(dst []byte, c *call) []byte {
	if c.id != nil {
		dst = append(dst, `,"id":`...)
		dst = appendCanonicalValid(dst, c.id)
	}
	return append(dst, '}')
}

func appendErrorReply(dst []byte, c *call, e *Error) []byte {
	if c.v2 {
		dst = append(dst, `{"jsonrpc":"2.0","error":`...)
	} else {
		dst = append(dst, `{"result":null,"error":`...)
	}
	dst = appendError(dst, e)
	return appendID(dst, c)
}

// target is where a request was sent, and by whom.
type target struct {
	wallet    string
	walletURI bool
	user      string // the authenticated user
}

// process answers one HTTP body. It appends the reply body (without the
// final newline) to dst and returns the HTTP status; status 204 means no
// body, 403 a refusal by the whitelist (an empty reply, dst unchanged).
func (s *Server) process(ctx context.Context, body []byte, t target, dst []byte) ([]byte, int) {
	ctx = context.WithValue(ctx, serverCtxKey{}, s.ctx)
	i := skipSpace(body, 0)
	end, ok := scanValue(body, i, 0)
	var c call
	c.reset()
	if !ok || skipSpace(body, end) != len(body) {
		return appendErrorReply(dst, &c, errParse), 500
	}
	v := body[i:end]
	hasList := false
	if s.wl != nil {
		hasList = s.wl.HasList(t.user)
		if !hasList && s.wl.DenyDefault() {
			s.log.Warn("RPC user not allowed to call any methods", "user", t.user)
			return dst, 403
		}
	}
	switch v[0] {
	case '{':
		if e := c.parse(v); e != nil {
			return appendErrorReply(dst, &c, e), httpStatus(e.Code)
		}
		if hasList && !s.whitelisted(t.user, c.method) {
			return dst, 403
		}
		mark := len(dst)
		out, e := s.execute(ctx, &c, t, appendReplyHead(dst, &c))
		if c.notification() {
			return dst[:mark], 204
		}
		if e != nil {
			status := 200
			if !c.v2 {
				status = httpStatus(e.Code)
			}
			return appendErrorReply(dst[:mark], &c, e), status
		}
		return appendReplyTail(out, &c), 200
	case '[':
		if limit := batchLimit(len(v)); batchLen(v, limit) > limit {
			e := tooLarge("Batch", limit, "requests")
			return appendErrorReply(dst, &c, e), httpStatus(e.Code)
		}
		if hasList {
			if e, status := s.checkBatch(v, t.user); status != 0 {
				if e == nil {
					return dst, status
				}
				return appendErrorReply(dst, &c, e), status
			}
		}
		dst = append(dst, '[')
		first := true
		n := 0
		el := newElements(v)
		for {
			ev, ok := el.next()
			if !ok {
				break
			}
			n++
			// Grown by doubling: append grows large slices by a
			// quarter, which for a long batch reply would copy it
			// over and over.
			if cap(dst)-len(dst) < 1024 {
				dst = slices.Grow(dst, max(len(dst), 4096))
			}
			mark := len(dst)
			if !first {
				dst = append(dst, ',')
			}
			e := c.parse(ev)
			var out []byte
			if e == nil {
				out, e = s.execute(ctx, &c, t, appendReplyHead(dst, &c))
			}
			switch {
			case c.notification():
				dst = dst[:mark]
				continue
			case e != nil:
				dst = appendErrorReply(dst[:mark+boolInt(!first)], &c, e)
			default:
				dst = appendReplyTail(out, &c)
			}
			first = false
		}
		if n > 0 && first {
			return dst[:len(dst)-1], 204
		}
		return append(dst, ']'), 200
	}
	return appendErrorReply(dst, &c, errTopLevel), 500
}

// whitelisted reports whether user may call the method named by the raw
// string token tok, logging a refusal.
func (s *Server) whitelisted(user string, tok []byte) bool {
	name, _ := unquote(tok)
	if s.wl.Allowed(user, name) {
		return true
	}
	s.log.Warn("RPC user not allowed to call method", "user", user, "method", name)
	return false
}

// checkBatch checks every element of a batch against user's method list
// before any runs, as Core does. It returns status 0 when all may run, 403
// when one may not, or the error that ends the whole batch: an element
// that is not an object, or one whose method is not a string.
func (s *Server) checkBatch(arr []byte, user string) (*Error, int) {
	el := newElements(arr)
	for {
		ev, ok := el.next()
		if !ok {
			return nil, 0
		}
		if ev[0] != '{' {
			return errInvalidRequest, httpStatus(errInvalidRequest.Code)
		}
		var method []byte
		it := newMembers(ev)
		for {
			k, val, ok := it.next()
			if !ok {
				break
			}
			if keyIs(k, "method") {
				method = val
				break
			}
		}
		if method == nil || method[0] != '"' {
			return &Error{CodeParseError, "JSON value of type " + JSONType(method) +
				" is not of expected type string"}, 500
		}
		if !s.whitelisted(user, method) {
			return nil, 403
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// paramsPool recycles the positional argument slices.
var paramsPool = sync.Pool{New: func() any { s := make([]json.RawMessage, 0, 16); return &s }}

// execute runs a parsed call (Core's CRPCTable::execute and
// RPCHelpMan::HandleRequest): method lookup, named parameters, argument
// count, type check, handler. On success it appends the encoded result to
// dst and returns it; on error dst's content is undefined.
func (s *Server) execute(ctx context.Context, c *call, t target, dst []byte) ([]byte, *Error) {
	m := s.lookup(c.method)
	if m == nil {
		return dst, errMethodNotFound
	}
	if c.params != nil {
		if limit := paramValuesLimit(len(c.params)); countItems(c.params, limit) > limit {
			return dst, tooLarge("Params", limit, "values")
		}
	}
	if m.Passthrough {
		req := Request{Method: m.Name, Raw: c.params, Wallet: t.wallet, WalletURI: t.walletURI}
		return s.finish(ctx, m, &req, dst)
	}
	pp := paramsPool.Get().(*[]json.RawMessage)
	defer func() {
		clear(*pp)
		*pp = (*pp)[:0]
		paramsPool.Put(pp)
	}()
	args := (*pp)[:0]
	if c.params != nil {
		if c.params[0] == '[' {
			// One argument more than the method takes is enough to
			// fail the count check: the rest are not collected.
			el := newElements(c.params)
			for len(args) <= len(m.Params) {
				v, ok := el.next()
				if !ok {
					break
				}
				args = append(args, v)
			}
		} else {
			var e *Error
			if args, e = namedArgs(m, c.params, args); e != nil {
				return dst, e
			}
		}
	}
	*pp = args
	if !validArgCount(m, len(args)) {
		return dst, &Error{CodeMisc, m.Help()}
	}
	if e := typeCheck(m, args); e != nil {
		return dst, e
	}
	req := Request{Method: m.Name, Params: args, Wallet: t.wallet, WalletURI: t.walletURI}
	return s.finish(ctx, m, &req, dst)
}

// finish runs the handler of a checked call and appends its encoded result
// to dst.
func (s *Server) finish(ctx context.Context, m *Method, req *Request, dst []byte) ([]byte, *Error) {
	res, err := s.run(ctx, m, req)
	if err != nil {
		return dst, s.rpcError(m, err)
	}
	out, encErr := s.appendResult(dst, res)
	if encErr != nil {
		s.log.Error("cannot encode result", "method", m.Name, "err", encErr)
		return dst, &Error{CodeMisc, internalErrorMessage}
	}
	return out, nil
}

// internalErrorMessage is the message of the -1 reply to a failure that is
// not the client's doing (an unexpected error or a panic).
const internalErrorMessage = "Internal error: the call failed unexpectedly; see the node's debug log"

// run calls the handler, turning a panic into an error and tracking the
// call for getrpcinfo.
func (s *Server) run(ctx context.Context, m *Method, req *Request) (res any, err error) {
	if s.log.Enabled(ctx, slog.LevelDebug) {
		// The method and where, never the params (keys, passphrases).
		s.log.Debug("call", "method", m.Name, "wallet", req.Wallet)
	}
	tok := s.active.add(m.Name)
	defer func() {
		s.active.remove(tok)
		if p := recover(); p != nil {
			s.log.Error("panic in RPC handler", "method", m.Name, "panic", fmt.Sprint(p),
				"stack", string(debug.Stack()))
			res, err = nil, &Error{CodeMisc, internalErrorMessage}
		}
	}()
	return m.Handler(ctx, req)
}

// rpcError turns a handler's error into the error the client sees.
func (s *Server) rpcError(m *Method, err error) *Error {
	if e, ok := err.(*Error); ok {
		return e
	}
	if s.mapError != nil {
		if mapped, ok := s.mapError(err).(*Error); ok {
			return mapped
		}
	}
	s.log.Error("RPC handler failed", "method", m.Name, "err", err)
	return &Error{CodeMisc, internalErrorMessage}
}

// lookup finds a method by its raw name token without allocating.
func (s *Server) lookup(tok []byte) *Method {
	body := tok[1 : len(tok)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return s.methods[unsafe.String(unsafe.SliceData(body), len(body))]
	}
	name, _ := unquote(tok)
	return s.methods[name]
}

// validArgCount is Core's IsValidNumArgs: at least up to the last required
// parameter, at most all of them.
func validArgCount(m *Method, n int) bool {
	required := 0
	for i := len(m.Params); i > 0; i-- {
		if !m.Params[i-1].Optional {
			required = i
			break
		}
	}
	return required <= n && n <= len(m.Params)
}

// typeCheck is Core's top-level argument type check: every mismatch is
// collected into one -3 error whose message is a pretty-printed JSON
// object, one "Position <n> (<name>)" entry per bad argument.
func typeCheck(m *Method, args []json.RawMessage) *Error {
	var bad []byte
	for i, p := range m.Params {
		if p.SkipTypeCheck {
			continue
		}
		want := p.Type.expected()
		if want == "" {
			continue
		}
		var arg []byte
		if i < len(args) {
			arg = args[i]
		}
		got := JSONType(arg)
		if got == want || (got == "null" && p.Optional) {
			continue
		}
		if bad == nil {
			bad = append(bad, "Wrong type passed:\n{\n"...)
		} else {
			bad = append(bad, ",\n"...)
		}
		bad = append(bad, "    "...)
		bad = appendString(bad, "Position "+strconv.Itoa(i+1)+" ("+p.names()+")")
		bad = append(bad, ": "...)
		bad = appendString(bad, "JSON value of type "+got+" is not of expected type "+want)
	}
	if bad == nil {
		return nil
	}
	bad = append(bad, "\n}"...)
	return &Error{CodeTypeError, string(bad)}
}

// namedArgs maps a params object to positions (Core's
// transformNamedArguments).
func namedArgs(m *Method, obj []byte, args []json.RawMessage) ([]json.RawMessage, *Error) {
	type kv struct {
		key  string
		val  []byte
		used bool
	}
	var given []kv
	var seen map[string]struct{} // past a few keys, for the duplicate check
	it := newMembers(obj)
	for {
		k, v, ok := it.next()
		if !ok {
			break
		}
		key, _ := unquote(k)
		dup := false
		if seen == nil && len(given) < 8 {
			for _, g := range given {
				dup = dup || g.key == key
			}
		} else {
			if seen == nil {
				seen = make(map[string]struct{}, 2*len(given))
				for _, g := range given {
					seen[g.key] = struct{}{}
				}
			}
			_, dup = seen[key]
			seen[key] = struct{}{}
		}
		if dup {
			return args, &Error{CodeInvalidParameter, "Parameter " + key + " specified multiple times"}
		}
		given = append(given, kv{key: key, val: v})
	}
	find := func(name string) int {
		for i := range given {
			if !given[i].used && given[i].key == name {
				return i
			}
		}
		return -1
	}
	hole, initialHole := 0, 0
	initialParam := ""
	for _, p := range m.Params {
		j := find(p.Name)
		for _, alias := range p.Aliases {
			if j >= 0 {
				break
			}
			j = find(alias)
		}
		var opts []int
		for _, name := range p.NamedOnly {
			if k := find(name); k >= 0 {
				opts = append(opts, k)
			}
		}
		if len(opts) > 0 {
			if j >= 0 {
				return args, &Error{CodeInvalidParameter, "Parameter " + given[j].key + " conflicts with parameter " + given[opts[0]].key}
			}
			for ; hole > 0; hole-- {
				args = append(args, nullText)
			}
			if initialParam == "" {
				initialParam = p.names()
			}
			obj := []byte{'{'}
			for i, k := range opts {
				if i > 0 {
					obj = append(obj, ',')
				}
				key, _ := json.Marshal(given[k].key)
				obj = append(append(append(obj, key...), ':'), given[k].val...)
				given[k].used = true
			}
			args = append(args, append(obj, '}'))
			continue
		}
		if j >= 0 {
			for ; hole > 0; hole-- {
				args = append(args, nullText)
			}
			if initialParam == "" {
				initialParam = p.names()
			}
			args = append(args, given[j].val)
			given[j].used = true
		} else {
			hole++
			if len(args) == 0 {
				initialHole = hole
			}
		}
	}
	if j := find("args"); j >= 0 {
		given[j].used = true
		if pos := given[j].val; pos[0] == '[' {
			// As for a positional call, one more than the method takes
			// is enough to fail the count check.
			var positional []json.RawMessage
			el := newElements(pos)
			for len(positional) <= len(m.Params) {
				v, ok := el.next()
				if !ok {
					break
				}
				positional = append(positional, v)
			}
			if initialHole < len(positional) && initialParam != "" {
				return args, &Error{CodeInvalidParameter, "Parameter " + initialParam +
					" specified twice both as positional and named argument"}
			}
			named := append([]json.RawMessage(nil), args...)
			args = append(args[:0], positional...)
			for i := len(args); i < len(named); i++ {
				args = append(args, named[i])
			}
		}
	}
	for _, g := range given {
		if !g.used {
			return args, &Error{CodeInvalidParameter, "Unknown named parameter " + g.key}
		}
	}
	return args, nil
}

// batchLen counts the elements of the valid array v, stopping once the
// count passes limit.
func batchLen(v []byte, limit int) int {
	n := 0
	for el := newElements(v); n <= limit; n++ {
		if _, ok := el.next(); !ok {
			break
		}
	}
	return n
}

// countItems counts the array elements and object members in the valid
// JSON value v, at every depth, stopping once the count passes limit. A
// non-empty container holds one item more than the commas directly in it,
// so the count is the commas outside strings plus the non-empty
// containers.
func countItems(v []byte, limit int) int {
	n := 0
	for i := 0; i < len(v) && n <= limit; i++ {
		switch v[i] {
		case '"':
			end, _ := scanString(v, i)
			i = end - 1
		case ',':
			n++
		case '[', '{':
			if j := skipSpace(v, i+1); j < len(v) && v[j] != ']' && v[j] != '}' {
				n++
			}
		}
	}
	return n
}

// activeCalls tracks the calls being run, for getrpcinfo.
type activeCalls struct {
	mu    sync.Mutex
	next  uint64
	calls map[uint64]activeCall
}

type activeCall struct {
	method string
	start  time.Time
}

func (a *activeCalls) add(method string) uint64 {
	now := time.Now()
	a.mu.Lock()
	a.next++
	tok := a.next
	if a.calls == nil {
		a.calls = make(map[uint64]activeCall)
	}
	a.calls[tok] = activeCall{method, now}
	a.mu.Unlock()
	return tok
}

func (a *activeCalls) remove(tok uint64) {
	a.mu.Lock()
	delete(a.calls, tok)
	a.mu.Unlock()
}

func (a *activeCalls) list() []ActiveCommand {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]ActiveCommand, 0, len(a.calls))
	toks := make([]uint64, 0, len(a.calls))
	for t := range a.calls {
		toks = append(toks, t)
	}
	// Oldest first.
	for i := 1; i < len(toks); i++ {
		for j := i; j > 0 && toks[j] < toks[j-1]; j-- {
			toks[j], toks[j-1] = toks[j-1], toks[j]
		}
	}
	for _, t := range toks {
		c := a.calls[t]
		out = append(out, ActiveCommand{Method: c.method, Duration: now.Sub(c.start).Microseconds()})
	}
	return out
}
