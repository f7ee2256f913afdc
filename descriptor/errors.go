package descriptor

import "github.com/descwallet/descwallet/errkind"

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// ErrorKind identifies a kind of descriptor error. Kinds are comparable with
// errors.Is against an *Error.
type ErrorKind = errkind.Kind[tag]

// These constants name every kind of error the package returns.
const (
	// ErrMultipleHash is a descriptor with more than one '#'. Fix the input.
	ErrMultipleHash = ErrorKind("ErrMultipleHash")

	// ErrMissingChecksum is a descriptor without a checksum where one is
	// required (the RequireChecksum option). Append the BIP 380 checksum.
	ErrMissingChecksum = ErrorKind("ErrMissingChecksum")

	// ErrChecksumLength is a checksum that is not 8 characters long.
	ErrChecksumLength = ErrorKind("ErrChecksumLength")

	// ErrInvalidCharacters is a descriptor holding characters outside the
	// BIP 380 character set, so no checksum can be computed.
	ErrInvalidCharacters = ErrorKind("ErrInvalidCharacters")

	// ErrChecksumMismatch is a checksum that differs from the computed one.
	ErrChecksumMismatch = ErrorKind("ErrChecksumMismatch")

	// ErrSyntax is a script expression that does not parse: an unknown
	// function, a function in a context where it is not allowed, trailing
	// text, a malformed taproot tree or multisig argument list.
	ErrSyntax = ErrorKind("ErrSyntax")

	// ErrInvalidKey is a key expression that does not parse: a bad public
	// key, WIF or extended key, a bad key origin or derivation path, or a key
	// form the enclosing context does not allow.
	ErrInvalidKey = ErrorKind("ErrInvalidKey")

	// ErrMultisig is a multisig whose threshold or key count breaks the
	// limits of its context.
	ErrMultisig = ErrorKind("ErrMultisig")

	// ErrMultipath is a multipath descriptor whose branches disagree in
	// number.
	ErrMultipath = ErrorKind("ErrMultipath")

	// ErrMiniscript is a miniscript expression that does not parse or is
	// not sane.
	ErrMiniscript = ErrorKind("ErrMiniscript")

	// ErrHardenedFromPublic is an expansion that needs a hardened derivation
	// step but has no private key and no cached result for it. Supply the
	// private key or a cache filled while it was known.
	ErrHardenedFromPublic = ErrorKind("ErrHardenedFromPublic")

	// ErrDerivation is a BIP 32 derivation that produced an invalid child
	// (probability below 2^-127) or went past depth 255.
	ErrDerivation = ErrorKind("ErrDerivation")

	// ErrNotRange is an index other than 0 asked of a descriptor that is
	// not ranged, or a range asked of a multipath descriptor.
	ErrNotRange = ErrorKind("ErrNotRange")

	// ErrCache is a derivation cache that is malformed or disagrees with the
	// descriptor it is used with.
	ErrCache = ErrorKind("ErrCache")

	// ErrNoMuSig is a musig() expression expanded while key aggregation is
	// not available.
	ErrNoMuSig = ErrorKind("ErrNoMuSig")
)

// Error is a descriptor error. Description is Bitcoin Core's message for the
// same failure, word for word, since RPC clients compare it; Err is the
// underlying error, if any.
type Error = errkind.Error[tag]

func makeError(kind ErrorKind, desc string) *Error { return errkind.New(kind, desc) }
