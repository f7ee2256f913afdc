package chain

import (
	"fmt"

	"github.com/descwallet/descwallet/errkind"
)

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// CauseInMessage makes Error() end with the underlying error's message.
func (tag) CauseInMessage() {}

// ErrorKind identifies a kind of backend failure. It satisfies the error
// interface so that errors.Is(err, chain.ErrNotFound) works on an *Error.
type ErrorKind = errkind.Kind[tag]

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

// Error is a backend failure: a kind, a description and the underlying
// error, if any; its message ends with the underlying error's.
type Error = errkind.Error[tag]

func chainErr(kind ErrorKind, desc string, err error) error { return errkind.Wrap(kind, desc, err) }

// RPCError is a JSON-RPC error object as the backend sent it.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Error satisfies the error interface.
func (e *RPCError) Error() string {
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}
