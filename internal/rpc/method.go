package rpc

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// ParamType is the declared JSON type of a method parameter. It drives both
// Core's top-level type check (the -3 "Wrong type passed" error) and the
// generated help.
type ParamType int

// Parameter types. TypeAmount and TypeRange are not pre-checked, as in Core:
// the handler reads them with Request.Amount or its own range parser, which
// produce Core's specific errors.
const (
	// TypeString accepts a JSON string.
	TypeString ParamType = iota + 1
	// TypeHex accepts a JSON string holding hex (help says "hex string").
	TypeHex
	// TypeNumber accepts a JSON number.
	TypeNumber
	// TypeBool accepts true or false.
	TypeBool
	// TypeObject accepts a JSON object.
	TypeObject
	// TypeArray accepts a JSON array.
	TypeArray
	// TypeAmount is a number or string amount in BTC; not pre-checked.
	TypeAmount
	// TypeRange is an end index or a [begin,end] pair; not pre-checked.
	TypeRange
	// TypeAny accepts any JSON value.
	TypeAny
)

// expected returns Core's type name that the top-level check requires, or
// "" when the type is not pre-checked.
func (t ParamType) expected() string {
	switch t {
	case TypeString, TypeHex:
		return "string"
	case TypeNumber:
		return "number"
	case TypeBool:
		return "bool"
	case TypeObject:
		return "object"
	case TypeArray:
		return "array"
	}
	return ""
}

// String returns the name the help text uses for the type.
func (t ParamType) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeHex:
		return "string, hex"
	case TypeNumber:
		return "numeric"
	case TypeBool:
		return "boolean"
	case TypeObject:
		return "json object"
	case TypeArray:
		return "json array"
	case TypeAmount:
		return "numeric or string"
	case TypeRange:
		return "numeric or array"
	case TypeAny:
		return "any"
	}
	return "unknown"
}

// Param describes one positional parameter of a method. Its position in
// Method.Params is its position in a positional call; Name is the key in a
// named call.
type Param struct {
	// Name is the parameter's name for named calls and help.
	Name string
	// Aliases are other names a named call may use for the parameter
	// (Core's "verbosity|verbose"): the first of Name and its aliases
	// present in the call is taken.
	Aliases []string
	// Type is the declared JSON type.
	Type ParamType
	// Optional parameters may be omitted or passed as null. Every parameter
	// before the last required one counts towards the minimum argument
	// count, as in Core.
	Optional bool
	// Default is the help text of the default value (for example `false`
	// or `"ALL"`); empty when there is none to show.
	Default string
	// Description is the help text of the parameter.
	Description string
	// SkipTypeCheck turns off the top-level type check for this parameter
	// (the handler checks it itself).
	SkipTypeCheck bool
	// NamedOnly are members of this object parameter that a named call
	// may also give as top-level named arguments (Core's
	// OBJ_NAMED_PARAMS): they are gathered, in this order, into the
	// object passed at this position.
	NamedOnly []string
	// Hidden leaves the parameter out of the help (Core's hidden
	// arguments, such as stop's wait); it is accepted all the same.
	Hidden bool
	// Fields documents the members of an object parameter, or of the
	// elements of an array parameter, for help only.
	Fields []Param
}

// names is the parameter's name with its aliases, as Core's m_names
// ("verbosity|verbose").
func (p *Param) names() string {
	if len(p.Aliases) == 0 {
		return p.Name
	}
	return p.Name + "|" + strings.Join(p.Aliases, "|")
}

// Handler runs a method. It returns a result that encoding/json can
// marshal (structs fix Core's field order), or an error: an *Error reaches
// the client as is, a domain error is mapped by the server's error mapper,
// anything else becomes -1 with a generic message and is logged. A handler
// must not write HTTP itself. ctx is cancelled when the client hangs up
// or the server stops: long work checks it.
type Handler func(ctx context.Context, req *Request) (any, error)

// Method is one RPC method: its name, help and handler. Each lives in its
// own file under internal/rpc/methods.
type Method struct {
	// Name is the case-sensitive method name.
	Name string
	// Category groups the method in the help list (Core's "control", "util",
	// "wallet", ...), as Core's command tables name them.
	Category string
	// Description is the help text shown after the usage line.
	Description string
	// Params lists the parameters in positional order.
	Params []Param
	// Result is the help text describing the result.
	Result string
	// Examples are argument strings for the help's example calls, for
	// example `"wpkh(...)" true`; each yields a CLI and a curl line.
	Examples []string
	// Handler runs the method.
	Handler Handler
	// Passthrough hands the params to the handler as they came (an
	// array, an object or nothing) in Request.Raw, without named-parameter
	// mapping, argument count or type checks: for methods whose
	// parameters another node checks (calls forwarded to the chain
	// backend). Params is then unused.
	Passthrough bool
}

// Request is one call as a handler sees it, after routing, named-parameter
// mapping and the top-level checks.
//
// Params holds the positional arguments as raw JSON; a position skipped in a
// named call holds the JSON literal null, and positions past len(Params)
// were not given. The raw bytes alias the request body: they are valid only
// until the handler returns, so copy what must outlive the call (decoding
// into Go values copies).
type Request struct {
	// Method is the method name.
	Method string
	// Params are the positional arguments.
	Params []json.RawMessage
	// Wallet is the percent-decoded wallet name from a /wallet/<name> URI.
	Wallet string
	// WalletURI reports whether the call came through /wallet/<name>
	// (Wallet may then be "", the wallet named "").
	WalletURI bool
	// Raw is the params value as sent (an array or an object, nil for
	// none) for a Passthrough method; nil otherwise. It aliases the
	// request body like Params.
	Raw json.RawMessage
}

// Arg returns argument i, or nil when it was not given.
func (r *Request) Arg(i int) json.RawMessage {
	if i < 0 || i >= len(r.Params) {
		return nil
	}
	return r.Params[i]
}

// Has reports whether argument i was given and is not null (Core's
// !request.params[i].isNull()).
func (r *Request) Has(i int) bool {
	return !IsNull(r.Arg(i))
}

// String reads argument i as a string (-3 inner type error otherwise; an
// absent argument reads as null).
func (r *Request) String(i int) (string, error) { return AsString(r.Arg(i)) }

// Bool reads argument i as a bool.
func (r *Request) Bool(i int) (bool, error) { return AsBool(r.Arg(i)) }

// Int64 reads argument i as a 64-bit integer (Core's getInt<int64_t>).
func (r *Request) Int64(i int) (int64, error) { return AsInt64(r.Arg(i)) }

// Int reads argument i as a 32-bit integer (Core's getInt<int>).
func (r *Request) Int(i int) (int, error) { return AsInt(r.Arg(i)) }

// Amount reads argument i as an amount in BTC (Core's AmountFromValue).
func (r *Request) Amount(i int) (Amount, error) { return AsAmount(r.Arg(i)) }

// Decode unmarshals argument i into v with encoding/json (numbers as
// json.Number when v holds interfaces). A JSON type mismatch becomes Core's
// -3 inner type error.
func (r *Request) Decode(i int, v any) error { return Decode(r.Arg(i), v) }

// JSONType returns Core's name of the JSON type of raw: "null", "bool",
// "object", "array", "string" or "number". Absent (nil) reads as "null".
func JSONType(raw []byte) string {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case 'n':
			return "null"
		case 't', 'f':
			return "bool"
		case '{':
			return "object"
		case '[':
			return "array"
		case '"':
			return "string"
		default:
			return "number"
		}
	}
	return "null"
}

// IsNull reports whether raw is absent or the JSON literal null.
func IsNull(raw []byte) bool { return JSONType(raw) == "null" }

// AsString decodes a JSON string, or returns Core's -3 inner type error.
func AsString(raw []byte) (string, error) {
	if t := JSONType(raw); t != "string" {
		return "", TypeError(t, "string")
	}
	s, ok := unquote(trimSpace(raw))
	if !ok {
		return "", TypeError("null", "string")
	}
	return s, nil
}

// AsBool decodes a JSON bool, or returns Core's -3 inner type error.
func AsBool(raw []byte) (bool, error) {
	if t := JSONType(raw); t != "bool" {
		return false, TypeError(t, "bool")
	}
	return trimSpace(raw)[0] == 't', nil
}

// AsNumber returns the original text of a JSON number, or Core's -3 inner
// type error.
func AsNumber(raw []byte) (json.Number, error) {
	if t := JSONType(raw); t != "number" {
		return "", TypeError(t, "number")
	}
	return json.Number(trimSpace(raw)), nil
}

// AsInt64 reads a JSON number as an int64 the way Core's getInt<int64_t>
// does: a non-number is a -3 type error; a fraction, an exponent or a value
// out of range is -1 "JSON integer out of range".
func AsInt64(raw []byte) (int64, error) {
	n, err := AsNumber(raw)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseInt(string(n), 10, 64)
	if perr != nil {
		return 0, ErrIntegerOutOfRange
	}
	return v, nil
}

// AsInt reads a JSON number as a 32-bit int (Core's getInt<int>), with the
// errors of AsInt64.
func AsInt(raw []byte) (int, error) {
	n, err := AsNumber(raw)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseInt(string(n), 10, 32)
	if perr != nil {
		return 0, ErrIntegerOutOfRange
	}
	return int(v), nil
}

// Decode unmarshals raw into v with encoding/json, turning a JSON type
// mismatch into Core's -3 inner type error. Absent raw decodes as null.
func Decode(raw []byte, v any) error {
	if len(raw) == 0 {
		raw = []byte("null")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		if te, ok := err.(*json.UnmarshalTypeError); ok {
			return TypeError(coreTypeName(te.Value), goTypeName(te.Type))
		}
		return NewError(CodeMisc, err.Error())
	}
	return nil
}

// coreTypeName maps encoding/json's value names to Core's.
func coreTypeName(v string) string {
	switch v {
	case "number", "string", "array", "object", "bool", "null":
		return v
	}
	if len(v) > 6 && v[:6] == "number" {
		return "number"
	}
	return v
}

// goTypeName names the JSON type a Go type expects, in Core's words.
func goTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return t.String()
}

// RawJSON is a JSON value a handler returns (alone, or inside a result) to
// have it written in Core's canonical form: compact, strings escaped as
// Core escapes them, and numbers with their original text. Echoing an
// argument is `return rpc.RawJSON(req.Params[0]), nil`. To echo a single
// number inside a struct, json.Number works too.
type RawJSON []byte

// MarshalJSON implements json.Marshaler.
func (r RawJSON) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	out, ok := appendCanonical(nil, r)
	if !ok {
		return nil, &Error{Code: CodeInternalError, Message: "invalid raw JSON"}
	}
	return out, nil
}
