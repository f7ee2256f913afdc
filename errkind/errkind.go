// Package errkind owns the error-kind pattern every package of the module
// shares: a kind that errors.Is compares against, and an error carrying a
// kind, Core's description and an optional cause.
//
// A package declares an unexported tag type and aliases the two generic
// types instantiated with it:
//
//	type tag struct{}
//
//	type ErrorKind = errkind.Kind[tag]
//	type Error = errkind.Error[tag]
//
//	const ErrNotFound = ErrorKind("ErrNotFound")
//
// The tag makes each package's kind a distinct type, so a kind never
// matches another package's kind of the same name: errors.Is compares
// interface values, which are equal only when their dynamic types are.
// The package depends on the standard library only, so that every layer,
// the public descriptor and psbt packages included, can use it.
package errkind

// Kind identifies a kind of error of the package whose tag is T. It
// satisfies the error interface, so errors.Is(err, kind) reports whether
// err carries the kind. Kinds are string constants; the string is the
// kind's name, not a message for users.
type Kind[T any] string

// Error returns the kind's name.
func (k Kind[T]) Error() string { return string(k) }

// Error is an error of the package whose tag is T: a kind for errors.Is, a
// description (Core's text, word for word, where Core has one) and the
// underlying error, if any.
//
// Error() is the description alone, unless T implements CauseInMessage and
// there is an underlying error: then it is the description, ": " and the
// underlying error's message.
type Error[T any] struct {
	Kind        Kind[T]
	Description string
	Err         error
}

// CauseInMessage is implemented by the tag types of packages whose error
// messages end with their cause's message (transport failures, where the
// cause is the useful part).
type CauseInMessage interface {
	CauseInMessage()
}

// Error returns the description, followed by the cause's message when T
// asks for it.
func (e *Error[T]) Error() string {
	if e.Err != nil {
		var t T
		if _, ok := any(t).(CauseInMessage); ok {
			return e.Description + ": " + e.Err.Error()
		}
	}
	return e.Description
}

// Unwrap returns the kind and the underlying error, if any, so that
// errors.Is and errors.As match either.
func (e *Error[T]) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// Is reports whether target is e's kind. Unwrap already lets errors.Is
// find the kind; Is answers without walking the chain.
func (e *Error[T]) Is(target error) bool {
	k, ok := target.(Kind[T])
	return ok && k == e.Kind
}

// New returns an error of the kind with the description and no cause.
func New[T any](kind Kind[T], desc string) *Error[T] {
	return &Error[T]{Kind: kind, Description: desc}
}

// Wrap returns an error of the kind with the description and the cause err.
func Wrap[T any](kind Kind[T], desc string, err error) *Error[T] {
	return &Error[T]{Kind: kind, Description: desc, Err: err}
}
