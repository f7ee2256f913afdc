package address

import (
	"testing"

	"github.com/descwallet/descwallet/errkind/errkindtest"
)

// TestErrorKinds checks that every kind of the package has its own name and
// that an error of each kind matches that kind only.
func TestErrorKinds(t *testing.T) {
	errkindtest.CheckKinds(t,
		ErrDecode,
		ErrBase58Length,
		ErrBase58Prefix,
		ErrBase58Checksum,
		ErrUnsupportedEncoding,
		ErrBech32,
		ErrEmptyData,
		ErrWrongPrefix,
		ErrV0NeedsBech32,
		ErrV1NeedsBech32m,
		ErrPadding,
		ErrV0ProgramSize,
		ErrWitnessVersion,
		ErrProgramSize,
		ErrInvalid,
	)
}
