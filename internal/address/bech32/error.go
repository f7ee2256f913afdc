package bech32

import "github.com/descwallet/descwallet/errkind"

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// ErrorKind identifies why a string is not valid Bech32. It satisfies the
// error interface so that callers can use errors.Is.
type ErrorKind = errkind.Kind[tag]

const (
	// ErrTooLong is a string longer than 90 characters.
	ErrTooLong = ErrorKind("ErrTooLong")
	// ErrInvalidCharacter is a character outside printable ASCII 33-126, or
	// a letter whose case differs from the first letter's.
	ErrInvalidCharacter = ErrorKind("ErrInvalidCharacter")
	// ErrMissingSeparator is a string with no '1'.
	ErrMissingSeparator = ErrorKind("ErrMissingSeparator")
	// ErrSeparatorPosition is an empty HRP or fewer than six characters
	// after the last '1'.
	ErrSeparatorPosition = ErrorKind("ErrSeparatorPosition")
	// ErrInvalidDataCharacter is a data character outside the Bech32
	// alphabet.
	ErrInvalidDataCharacter = ErrorKind("ErrInvalidDataCharacter")
	// ErrChecksum is a checksum valid under neither encoding.
	ErrChecksum = ErrorKind("ErrChecksum")
)

// messages holds Core's text for each kind; ErrChecksum's is refined by the
// error location.
var messages = map[ErrorKind]string{
	ErrTooLong:              "Bech32 string too long",
	ErrInvalidCharacter:     "Invalid character or mixed case",
	ErrMissingSeparator:     "Missing separator",
	ErrSeparatorPosition:    "Invalid separator position",
	ErrInvalidDataCharacter: "Invalid Base 32 character",
	ErrChecksum:             "Invalid checksum",
}

// kindError is the shared kind and description that Error embeds.
type kindError = errkind.Error[tag]

// Error is a decoding failure: its Kind for errors.Is, Core's message as
// Description, and the 0-based positions of the offending characters (Core's
// error_locations; empty when Core reports none).
type Error struct {
	kindError
	Locations []int
}

func newError(kind ErrorKind, locs []int) *Error {
	if locs == nil {
		locs = []int{}
	}
	return &Error{kindError: kindError{Kind: kind, Description: messages[kind]}, Locations: locs}
}
