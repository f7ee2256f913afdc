// Package secp holds the secp256k1 field arithmetic the signer and the
// descriptor engine share where the library's own is slow for them.
//
// # Model
//
// The secp256k1 library inverts a field element by exponentiation (about
// 270 field operations). InvertField computes the inverse with math/big's
// extended GCD instead, about a tenth of the time, and checks it with one
// multiplication (z·z⁻¹ = 1), falling back to the library should the check
// ever fail. ToAffine converts a Jacobian point with it. Both take time
// that depends on their input, like the non-constant-time scalar
// multiplications whose results they convert: they are for public points
// and for nonces' points whose coordinates become public anyway.
//
// The package is a leaf: it imports the secp256k1 library and the standard
// library only, nothing of this module.
//
// # Errors
//
// None: InvertField and ToAffine report a zero input (the point at
// infinity) with a false result.
package secp
