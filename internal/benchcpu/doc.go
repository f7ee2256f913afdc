// Package benchcpu adds the process CPU time per iteration to a
// benchmark's report, for the benchmarks of the signer and of the RPC
// methods.
//
// # Model
//
// On a machine shared with other work, wall time per iteration depends on
// the load; the CPU time the process used (user and system) depends on it
// less. A benchmark takes Used before its loop and calls Report after it,
// which adds the metric cpu-ns/op. Where the platform has no getrusage,
// Used is zero and Report adds nothing.
//
// The package is a leaf: it imports the standard library only.
//
// # Errors
//
// None: when the CPU time cannot be read, Used is zero and Report adds
// nothing.
package benchcpu
