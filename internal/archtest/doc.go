// Package archtest holds no code of its own: its tests check the dependency
// rules of the house (design.md "Layout") over the real import graph, that
// no code outside internal/safego starts a goroutine with a bare go
// statement (a panic in one would kill the daemon), that no package declares
// an error-kind type of its own instead of using errkind, and that no function
// computing on secrets (private keys, nonces, points derived from them)
// reaches math/big or another variable-time function over the module's
// static call graph, so that a forbidden import or call fails the build's
// tests rather than a review.
package archtest
