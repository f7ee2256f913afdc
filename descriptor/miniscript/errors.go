package miniscript

import "github.com/descwallet/descwallet/errkind"

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// ErrorKind identifies a kind of miniscript error; usable with errors.Is.
type ErrorKind = errkind.Kind[tag]

// The error kinds.
const (
	// ErrKey is a key index that has no key.
	ErrKey = ErrorKind("ErrKey")
)

// Error is a miniscript error: its kind and description.
type Error = errkind.Error[tag]

func makeError(k ErrorKind, d string) *Error { return errkind.New(k, d) }
