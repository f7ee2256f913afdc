package scan

// ErrorKind identifies a kind of scan failure. It satisfies the error
// interface so that errors.Is(err, scan.ErrAborted) works on an *Error.
type ErrorKind string

const (
	// ErrAborted is a rescan stopped by Abort or by its context.
	ErrAborted = ErrorKind("ErrAborted")

	// ErrBusy is a rescan asked for while another one runs.
	ErrBusy = ErrorKind("ErrBusy")
)

// Error satisfies the error interface.
func (k ErrorKind) Error() string { return string(k) }

// Error is a scan failure: a kind, a description and the underlying error,
// if any.
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

func scanErr(kind ErrorKind, desc string, err error) error {
	return &Error{Kind: kind, Description: desc, Err: err}
}
