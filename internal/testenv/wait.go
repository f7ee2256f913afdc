package testenv

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// pollInterval is how often Poll and Eventually retry.
const pollInterval = 25 * time.Millisecond

// permanentError ends a Poll loop at once.
type permanentError struct{ error }

// Unwrap returns the wrapped error.
func (e permanentError) Unwrap() error { return e.error }

// Permanent wraps err so that Poll stops retrying and returns err at once:
// for a condition that waiting cannot fix, such as a child process that
// exited.
func Permanent(err error) error {
	return permanentError{err}
}

// Poll calls f until it returns nil or the timeout passes, and returns f's
// last error wrapped with the time waited when it never succeeded. An error
// made by Permanent is returned unwrapped at once.
func Poll(timeout time.Duration, f func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return nil
		}
		var perm permanentError
		if errors.As(err, &perm) {
			return perm.error
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still failing after %v: %w", timeout, err)
		}
		time.Sleep(pollInterval)
	}
}

// Eventually is Poll that fails the test when f never succeeds.
func Eventually(tb testing.TB, timeout time.Duration, f func() error) {
	tb.Helper()
	if err := Poll(timeout, f); err != nil {
		tb.Fatal(err)
	}
}
