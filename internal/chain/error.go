package chain

import "fmt"

// ErrorKind identifies a kind of backend failure. It satisfies the error
// interface so that errors.Is(err, chain.ErrNotFound) works on an *Error.
type ErrorKind string

const (
	// ErrUnreachable is a transport failure that persisted through the
	// retries: the backend is down, refuses connections or times out.
	ErrUnreachable = ErrorKind("ErrUnreachable")

	// ErrAuth is an HTTP 401 from the backend: wrong user, password or
	// cookie.
	ErrAuth = ErrorKind("ErrAuth")

	// ErrNotFound is an unknown block hash, a height above the tip, or a
	// filter the backend has not indexed yet.
	ErrNotFound = ErrorKind("ErrNotFound")

	// ErrNoFilters means the backend keeps no BIP158 basic filter index
	// (bitcoind without -blockfilterindex, btcd with --nocfilters).
	ErrNoFilters = ErrorKind("ErrNoFilters")

	// ErrWrongNetwork means the backend's genesis block is not the one of
	// the configured network.
	ErrWrongNetwork = ErrorKind("ErrWrongNetwork")

	// ErrBadReply is a reply that cannot be decoded, exceeds its size
	// bound, or does not match what was asked (a block or header whose hash
	// differs from the requested one, a wrong merkle root).
	ErrBadReply = ErrorKind("ErrBadReply")

	// ErrRPC is any other JSON-RPC error the backend returned; the
	// *RPCError is wrapped.
	ErrRPC = ErrorKind("ErrRPC")
)

// Error satisfies the error interface.
func (k ErrorKind) Error() string { return string(k) }

// Error is a backend failure: a kind, a description and the underlying
// error, if any.
type Error struct {
	Kind        ErrorKind
	Description string
	Err         error
}

// Error satisfies the error interface.
func (e *Error) Error() string {
	if e.Err != nil {
		return e.Description + ": " + e.Err.Error()
	}
	return e.Description
}

// Unwrap returns the kind and the underlying error, so errors.Is matches
// both.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

func chainErr(kind ErrorKind, desc string, err error) error {
	return &Error{Kind: kind, Description: desc, Err: err}
}

// RPCError is a JSON-RPC error object as the backend sent it.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Error satisfies the error interface.
func (e *RPCError) Error() string {
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}
