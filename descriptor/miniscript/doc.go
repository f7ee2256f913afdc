// Package miniscript implements miniscript as Bitcoin Core does, for use
// inside wsh() descriptors and tr() leaves: every fragment and wrapper Core
// supports, its type system, the P2WSH and Tapscript contexts, Core's
// sanity rules and their messages, script generation, decoding a script
// back to miniscript, and non-malleable satisfaction.
//
// # Model
//
// A Node is a tree of fragments. Keys are not held by the tree: a node
// refers to key i of a list the caller owns (the key expressions of a
// descriptor, or the keys met while decoding a script), so the descriptor
// package keeps owning key expressions. Parse takes a KeyParser that turns
// each key expression into an index; Decode takes a KeyResolver that turns
// each key (or key hash) found in a script into an index.
//
// Every node caches, when built, its type (basic type B, V, K or W and the
// properties z o n d u e f s m x, with the timelock flags g h i j k), its
// script length, its opcode count, its stack and witness size bounds. From
// them come Core's checks: IsValid, IsValidTopLevel, IsSane and its
// parts, and SaneError, which builds Core's message for a descriptor whose
// miniscript is not sane ("... is not sane: malleable witnesses exist",
// "... is invalid", "... is not satisfiable", ...).
//
// Parse follows Core's string parser byte for byte, including its script
// size bound while parsing and the way it reads keys and hashes up to the
// next ')'. Decode follows Core's script decoder: it accepts only minimal
// pushes and only scripts that are the exact script of a valid top-level
// miniscript.
//
// Satisfy computes, bottom-up, the best satisfaction and dissatisfaction of
// every node with Core's rules for choosing between alternatives (no
// signature beats signature, non-malleable beats malleable, then the
// smaller witness), and returns the witness only when it is non-malleable
// and holds a signature.
//
// # Errors
//
// Parse returns the KeyParser's error unchanged when a key expression
// fails, and otherwise reports a string that is not miniscript by a nil
// node, as Core does; the caller then tries other readings. Script returns
// an *Error of kind ErrKey when a key index has no key.
//
// # Concurrency
//
// A Node is immutable once built and safe for concurrent use.
package miniscript
