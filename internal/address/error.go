package address

import "github.com/descwallet/descwallet/errkind"

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// ErrorKind identifies why a string is not an address of the network. It
// satisfies the error interface so that callers can use errors.Is. Each
// kind's text in Core is given with it; the RPC layer answers every kind
// with RPC_INVALID_ADDRESS_OR_KEY (-5) and the error's message.
type ErrorKind = errkind.Kind[tag]

const (
	// ErrDecode matches every error Decode returns, whatever its kind, so
	// that one errors.Is test (or one row of the RPC error table) covers
	// them all; Core answers each with RPC_INVALID_ADDRESS_OR_KEY.
	ErrDecode = ErrorKind("ErrDecode")

	// ErrBase58Length is a Base58Check string whose version byte is the
	// network's P2PKH or P2SH prefix but whose payload is too short:
	// "Invalid length for Base58 address (P2PKH or P2SH)".
	ErrBase58Length = ErrorKind("ErrBase58Length")

	// ErrBase58Prefix is a Base58Check string with a version byte the
	// network does not use (for example another network's address):
	// "Invalid or unsupported Base58-encoded address.".
	ErrBase58Prefix = ErrorKind("ErrBase58Prefix")

	// ErrBase58Checksum is a Base58 string whose checksum fails or whose
	// payload is too long: "Invalid checksum or length of Base58 address
	// (P2PKH or P2SH)".
	ErrBase58Checksum = ErrorKind("ErrBase58Checksum")

	// ErrUnsupportedEncoding is a string that is neither Base58 nor starts
	// with the network's Bech32 prefix: "Invalid or unsupported Segwit
	// (Bech32) or Base58 encoding.".
	ErrUnsupportedEncoding = ErrorKind("ErrUnsupportedEncoding")

	// ErrBech32 is a string starting with the network's prefix that is not
	// valid Bech32 or Bech32m. The error wraps a *bech32.Error; its message
	// and Locations are those of Core's error location ("Invalid Bech32
	// checksum", "Invalid character or mixed case", ...).
	ErrBech32 = ErrorKind("ErrBech32")

	// ErrEmptyData is a valid Bech32 string with no data:
	// "Empty Bech32 data section".
	ErrEmptyData = ErrorKind("ErrEmptyData")

	// ErrWrongPrefix is a valid Bech32 string whose HRP only begins with the
	// network's: "Invalid or unsupported prefix for Segwit (Bech32) address
	// (expected %s, got %s).".
	ErrWrongPrefix = ErrorKind("ErrWrongPrefix")

	// ErrV0NeedsBech32 is a version 0 program with a Bech32m checksum:
	// "Version 0 witness address must use Bech32 checksum".
	ErrV0NeedsBech32 = ErrorKind("ErrV0NeedsBech32")

	// ErrV1NeedsBech32m is a version 1+ program with a Bech32 checksum:
	// "Version 1+ witness address must use Bech32m checksum".
	ErrV1NeedsBech32m = ErrorKind("ErrV1NeedsBech32m")

	// ErrPadding is a data part whose bit padding is longer than 4 bits or
	// not zero: "Invalid padding in Bech32 data section".
	ErrPadding = ErrorKind("ErrPadding")

	// ErrV0ProgramSize is a version 0 program of neither 20 nor 32 bytes:
	// "Invalid Bech32 v0 address program size (%d %s), per BIP141".
	ErrV0ProgramSize = ErrorKind("ErrV0ProgramSize")

	// ErrWitnessVersion is a witness version above 16:
	// "Invalid Bech32 address witness version".
	ErrWitnessVersion = ErrorKind("ErrWitnessVersion")

	// ErrProgramSize is a version 1+ program shorter than 2 or longer than
	// 40 bytes: "Invalid Bech32 address program size (%d %s)".
	ErrProgramSize = ErrorKind("ErrProgramSize")

	// ErrInvalid is a failure Core gives no specific reason for:
	// "Invalid address".
	ErrInvalid = ErrorKind("ErrInvalid")
)

// kindError is the shared kind, description and cause that Error embeds.
type kindError = errkind.Error[tag]

// Error is an address that does not decode. Error() is Core's exact message
// for it; Locations are the 0-based character positions Core's
// validateaddress reports in error_locations (empty for most kinds).
type Error struct {
	kindError
	Locations []int
}

// Unwrap returns the kind, ErrDecode and the wrapped error, if any, so that
// errors.Is matches any of them.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, ErrDecode, e.Err}
	}
	return []error{e.Kind, ErrDecode}
}

func newError(kind ErrorKind, desc string) *Error {
	return &Error{kindError: kindError{Kind: kind, Description: desc}, Locations: []int{}}
}
