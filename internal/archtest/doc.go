// Package archtest holds no code of its own: its test checks the dependency
// rules of the house (design.md "Layout") over the real import graph, so that
// a forbidden import fails the build's tests rather than a review, and
// that no code outside internal/safego starts a goroutine with a bare go
// statement (a panic in one would kill the daemon).
package archtest
