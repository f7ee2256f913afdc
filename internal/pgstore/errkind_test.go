package pgstore

import (
	"testing"

	"github.com/descwallet/descwallet/errkind/errkindtest"
)

// TestErrorKinds checks that every kind of the package has its own name and
// that an error of each kind matches that kind only.
func TestErrorKinds(t *testing.T) {
	errkindtest.CheckKinds(t, ErrExists, ErrNotFound, ErrSchema, ErrLocked, ErrDatabase)
}
