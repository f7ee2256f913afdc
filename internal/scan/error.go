package scan

import (
	"github.com/descwallet/descwallet/errkind"
)

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// CauseInMessage makes Error() end with the underlying error's message.
func (tag) CauseInMessage() {}

// ErrorKind identifies a kind of scan failure. It satisfies the error
// interface so that errors.Is(err, scan.ErrAborted) works on an *Error.
type ErrorKind = errkind.Kind[tag]

const (
	// ErrAborted is a rescan stopped by Abort or by its context.
	ErrAborted = ErrorKind("ErrAborted")

	// ErrBusy is a rescan asked for while another one runs.
	ErrBusy = ErrorKind("ErrBusy")
)

// Error is a scan failure: a kind, a description and the underlying error,
// if any; its message ends with the underlying error's.
type Error = errkind.Error[tag]

func scanErr(kind ErrorKind, desc string, err error) error { return errkind.Wrap(kind, desc, err) }
