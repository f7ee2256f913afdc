// Package safego owns the starting of goroutines. Every goroutine of the
// module's non-test code is started here, so that a panic in one cannot
// kill the daemon: it is recovered, logged (its stack without argument
// values, its value only when that is a runtime error), and handed as a
// *PanicError to whoever waits for the goroutine. A test in
// internal/archtest checks that no other package has a bare go statement.
//
// It is a leaf: it imports nothing of the module.
package safego
