// Package errkindtest owns the test helpers for packages built on errkind;
// only tests import it.
package errkindtest

import (
	"errors"
	"testing"

	"github.com/descwallet/descwallet/errkind"
)

// CheckKinds fails the test unless every kind is named (non-empty), the
// names are unique, and an error of each kind matches that kind and no
// other under errors.Is. Packages call it from their "every kind has a
// name" test with the full list of their kinds.
func CheckKinds[T any](tb testing.TB, kinds ...errkind.Kind[T]) {
	tb.Helper()
	seen := make(map[errkind.Kind[T]]bool, len(kinds))
	for _, k := range kinds {
		if k.Error() == "" {
			tb.Errorf("a kind has an empty name")
		}
		if seen[k] {
			tb.Errorf("kind %q listed twice", string(k))
		}
		seen[k] = true
	}
	for _, k := range kinds {
		e := errkind.New(k, "x")
		for _, other := range kinds {
			if got := errors.Is(e, other); got != (other == k) {
				tb.Errorf("errors.Is(error of kind %q, %q) = %v", string(k), string(other), got)
			}
		}
	}
}
