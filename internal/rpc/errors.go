package rpc

import (
	"fmt"
	"strconv"
)

// Code is a JSON-RPC error code. The values mirror Bitcoin Core's
// src/rpc/protocol.h, so clients that branch on codes behave as they do
// against Core.
type Code int

// Standard JSON-RPC 2.0 codes.
const (
	// CodeInvalidRequest is a request object that is not valid JSON-RPC
	// (legacy replies carry HTTP 400).
	CodeInvalidRequest Code = -32600
	// CodeMethodNotFound is an unknown method (legacy replies carry HTTP 404).
	CodeMethodNotFound Code = -32601
	// CodeInvalidParams is reserved by JSON-RPC; Core does not use it.
	CodeInvalidParams Code = -32602
	// CodeInternalError is a genuine internal fault of the server.
	CodeInternalError Code = -32603
	// CodeParseError is a body that is not JSON, or not an object or array.
	CodeParseError Code = -32700
)

// General application codes.
const (
	// CodeMisc is the catch-all for failures while running a method,
	// including wrong argument counts (whose message is the method's help).
	CodeMisc Code = -1
	// CodeForbiddenBySafeMode is reserved and unused.
	CodeForbiddenBySafeMode Code = -2
	// CodeTypeError is an argument or inner value of the wrong JSON type.
	CodeTypeError Code = -3
	// CodeInvalidAddressOrKey is an address, key or descriptor that does not
	// parse.
	CodeInvalidAddressOrKey Code = -5
	// CodeOutOfMemory is an operation that ran out of memory.
	CodeOutOfMemory Code = -7
	// CodeInvalidParameter is an invalid, missing or duplicate parameter.
	CodeInvalidParameter Code = -8
	// CodeDatabaseError is a storage failure.
	CodeDatabaseError Code = -20
	// CodeDeserialization is raw data (a transaction, a PSBT) that does not
	// decode.
	CodeDeserialization Code = -22
	// CodeVerifyError is a general failure to submit a transaction or block.
	CodeVerifyError Code = -25
	// CodeVerifyRejected is a transaction or block rejected by network rules.
	CodeVerifyRejected Code = -26
	// CodeVerifyAlreadyInChain is a transaction already in the chain.
	CodeVerifyAlreadyInChain Code = -27
	// CodeInWarmup is any call made while the node is still starting.
	CodeInWarmup Code = -28
	// CodeMethodDeprecated is a deprecated method.
	CodeMethodDeprecated Code = -32
)

// Aliases kept by Core for backward compatibility.
const (
	CodeTransactionError          = CodeVerifyError
	CodeTransactionRejected       = CodeVerifyRejected
	CodeTransactionAlreadyInChain = CodeVerifyAlreadyInChain
)

// Peer-to-peer client codes (kept for completeness; a wallet node rarely
// produces them).
const (
	CodeClientNotConnected        Code = -9
	CodeClientInInitialDownload   Code = -10
	CodeClientNodeAlreadyAdded    Code = -23
	CodeClientNodeNotAdded        Code = -24
	CodeClientNodeNotConnected    Code = -29
	CodeClientInvalidIPOrSubnet   Code = -30
	CodeClientP2PDisabled         Code = -31
	CodeClientMempoolDisabled     Code = -33
	CodeClientNodeCapacityReached Code = -34
)

// Wallet codes.
const (
	// CodeWalletError is an unspecified wallet problem.
	CodeWalletError Code = -4
	// CodeWalletInsufficientFunds is a spend the wallet cannot fund.
	CodeWalletInsufficientFunds Code = -6
	// CodeWalletInvalidLabelName is a label that is not allowed ("*").
	CodeWalletInvalidLabelName Code = -11
	// CodeWalletKeypoolRanOut is a request for a new key when none is left.
	CodeWalletKeypoolRanOut Code = -12
	// CodeWalletUnlockNeeded is an operation that needs the passphrase.
	CodeWalletUnlockNeeded Code = -13
	// CodeWalletPassphraseIncorrect is a wrong wallet passphrase.
	CodeWalletPassphraseIncorrect Code = -14
	// CodeWalletWrongEncState is a call made in the wrong encryption state.
	CodeWalletWrongEncState Code = -15
	// CodeWalletEncryptionFailed is a failure to encrypt the wallet.
	CodeWalletEncryptionFailed Code = -16
	// CodeWalletAlreadyUnlocked is an unlock of an unlocked wallet.
	CodeWalletAlreadyUnlocked Code = -17
	// CodeWalletNotFound is a wallet name that is not loaded, or no wallet
	// at all.
	CodeWalletNotFound Code = -18
	// CodeWalletNotSpecified is a call on "/" while several wallets are
	// loaded.
	CodeWalletNotSpecified Code = -19
	// CodeWalletAlreadyLoaded is a load of a wallet that is loaded.
	CodeWalletAlreadyLoaded Code = -35
	// CodeWalletAlreadyExists is a restore onto a wallet, or a wallet
	// folder, that exists.
	CodeWalletAlreadyExists Code = -36

	// CodeWalletInvalidAccountName is the old name of
	// CodeWalletInvalidLabelName.
	CodeWalletInvalidAccountName = CodeWalletInvalidLabelName
)

// Error is the one error type that reaches a JSON-RPC client: Core's numeric
// code and its exact message. Handlers return *Error (or a domain error that
// methods/errmap.go maps to one); any other error becomes CodeMisc with a
// generic message and is logged.
//
// Error is not an errkind.Error: its identity is Core's numeric code, an
// open set fixed by the protocol (every code a client may see, including
// those no domain kind maps to), and its message is the whole reply, with
// no cause behind it. Domain packages report failures with errkind kinds;
// methods/errmap.go turns them into an Error at the boundary.
type Error struct {
	Code    Code
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string {
	return e.Message
}

// NewError returns an *Error with the given code and message.
func NewError(code Code, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Errorf returns an *Error whose message is formatted with fmt.Sprintf.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// TypeError returns Core's inner type error (-3):
// "JSON value of type <got> is not of expected type <want>". Type names are
// Core's: null, bool, object, array, string, number.
func TypeError(got, want string) *Error {
	return &Error{Code: CodeTypeError,
		Message: "JSON value of type " + got + " is not of expected type " + want}
}

// ErrIntegerOutOfRange is Core's error for a number read as an integer that
// is fractional, has an exponent or does not fit (-1, "JSON integer out of
// range").
var ErrIntegerOutOfRange = &Error{Code: CodeMisc, Message: "JSON integer out of range"}

// appendError appends the JSON error object {"code":N,"message":"..."}.
func appendError(dst []byte, e *Error) []byte {
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.Code), 10)
	dst = append(dst, `,"message":`...)
	dst = appendString(dst, e.Message)
	return append(dst, '}')
}
