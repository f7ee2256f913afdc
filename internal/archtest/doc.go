// Package archtest holds no code of its own: its test checks the dependency
// rules of the house (design.md "Layout") over the real import graph, so that
// a forbidden import fails the build's tests rather than a review.
package archtest
