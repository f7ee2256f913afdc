// Package bech32 implements the Bech32 (BIP 173) and Bech32m (BIP 350)
// string encodings, with Bitcoin Core's decoding rules and its error
// location messages.
//
// # Model
//
// A Bech32 string is a human-readable part (HRP), the separator '1' (the
// last '1' of the string), and a data part of 5-bit values written in a
// 32-character alphabet, the last six of which are a BCH checksum over the
// HRP and the data. The two encodings differ only in the constant the
// checksum is XORed with. A string is at most 90 characters, of printable
// ASCII (33-126), and entirely lower or entirely upper case; the HRP is
// returned in lower case.
//
// Decode returns the encoding, the HRP and the data values without the
// checksum. When a string does not decode, its error carries the message and
// the character positions Core's bech32::LocateErrors reports, in Core's
// order of checks: length over 90, invalid character or mixed case, missing
// separator, separator position, a character outside the alphabet, then the
// checksum. For a bad checksum the positions of up to two substituted data
// characters are located under both encodings; the encoding that explains
// the string with fewer substitutions names the message ("Invalid Bech32
// checksum" or "Invalid Bech32m checksum", Bech32 on a tie), and "Invalid
// checksum" is reported when neither does.
//
// ConvertBits regroups 8-bit bytes into 5-bit values and back, with Core's
// padding rules.
//
// # Errors
//
// Decode returns an *Error. Its Kind (ErrTooLong, ErrInvalidCharacter,
// ErrMissingSeparator, ErrSeparatorPosition, ErrInvalidDataCharacter,
// ErrChecksum) is for errors.Is; Error() is Core's exact message and
// Locations the 0-based positions validateaddress reports.
//
// # Concurrency
//
// All functions are safe for concurrent use.
package bech32
