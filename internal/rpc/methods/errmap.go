package methods

import (
	"context"
	"errors"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/scan"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/wallet"
)

// errRow maps one domain error kind to Core's RPC code. The client sees
// the code and, by default, the domain error's own message (which carries
// Core's text); Message overrides it where Core words the error
// differently from the domain package.
type errRow struct {
	// Kind is matched with errors.Is.
	Kind error
	// Code is the RPC code the client sees.
	Code rpc.Code
	// Message, when not nil, computes the message from the error.
	Message func(err error) string
}

// errTable is the one place where domain errors become RPC errors. Add a
// row per domain error kind; the first matching row wins.
var errTable = []errRow{
	// Descriptor parsing (importdescriptors, getdescriptorinfo,
	// deriveaddresses): Core answers -5 with the parser's message.
	{Kind: descriptor.ErrMultipleHash, Code: rpc.CodeInvalidAddressOrKey},
	{Kind: descriptor.ErrMissingChecksum, Code: rpc.CodeInvalidAddressOrKey},
	{Kind: descriptor.ErrChecksumLength, Code: rpc.CodeInvalidAddressOrKey},
	{Kind: descriptor.ErrInvalidCharacters, Code: rpc.CodeInvalidAddressOrKey},
	{Kind: descriptor.ErrChecksumMismatch, Code: rpc.CodeInvalidAddressOrKey},
	{Kind: descriptor.ErrSyntax, Code: rpc.CodeInvalidAddressOrKey},
	{Kind: descriptor.ErrInvalidKey, Code: rpc.CodeInvalidAddressOrKey},
	{Kind: descriptor.ErrMultisig, Code: rpc.CodeInvalidAddressOrKey},
	{Kind: descriptor.ErrMultipath, Code: rpc.CodeInvalidAddressOrKey},
	{Kind: descriptor.ErrMiniscript, Code: rpc.CodeInvalidAddressOrKey},
	{Kind: descriptor.ErrHardenedFromPublic, Code: rpc.CodeInvalidAddressOrKey},
	// The PSBT calls: Core's JSONRPCPSBTError(SIGHASH_MISMATCH).
	{Kind: sign.ErrSighashMismatch, Code: rpc.CodeDeserialization},
	// signrawtransactionwithkey.
	{Kind: sign.ErrTxDecode, Code: rpc.CodeDeserialization},
	{Kind: sign.ErrInvalidKey, Code: rpc.CodeInvalidAddressOrKey},
	{Kind: sign.ErrPrevoutMismatch, Code: rpc.CodeDeserialization},
	{Kind: sign.ErrMissingAmount, Code: rpc.CodeTypeError},
	{Kind: sign.ErrSignFailed, Code: rpc.CodeInvalidAddressOrKey},
	// Rescans and the chain backend.
	{Kind: scan.ErrBusy, Code: rpc.CodeWalletError, Message: func(error) string {
		return "Wallet is currently rescanning. Abort existing rescan or wait."
	}},
	{Kind: scan.ErrAborted, Code: rpc.CodeMisc, Message: func(error) string { return "Rescan aborted by user." }},
	{Kind: chain.ErrUnreachable, Code: rpc.CodeMisc},
	{Kind: chain.ErrAuth, Code: rpc.CodeMisc},
	{Kind: chain.ErrNotFound, Code: rpc.CodeMisc},
	{Kind: chain.ErrNoFilters, Code: rpc.CodeMisc},
	{Kind: chain.ErrWrongNetwork, Code: rpc.CodeMisc},
	{Kind: chain.ErrBadReply, Code: rpc.CodeMisc},
	{Kind: chain.ErrRPC, Code: rpc.CodeMisc},
	// Wallet errors carry Core's message; the kind names the code.
	{Kind: wallet.ErrWallet, Code: rpc.CodeWalletError},
	{Kind: wallet.ErrNotSupported, Code: rpc.CodeWalletError},
	{Kind: wallet.ErrInvalidParameter, Code: rpc.CodeInvalidParameter},
	{Kind: wallet.ErrInvalidAddressOrKey, Code: rpc.CodeInvalidAddressOrKey},
	{Kind: wallet.ErrInvalidLabel, Code: rpc.CodeWalletInvalidLabelName},
	{Kind: wallet.ErrKeypoolRanOut, Code: rpc.CodeWalletKeypoolRanOut},
	{Kind: wallet.ErrUnlockNeeded, Code: rpc.CodeWalletUnlockNeeded},
	{Kind: wallet.ErrPassphraseIncorrect, Code: rpc.CodeWalletPassphraseIncorrect},
	{Kind: wallet.ErrWrongEncState, Code: rpc.CodeWalletWrongEncState},
	{Kind: wallet.ErrEncryptionFailed, Code: rpc.CodeWalletEncryptionFailed},
	{Kind: wallet.ErrNotFound, Code: rpc.CodeWalletNotFound},
	{Kind: wallet.ErrNotSpecified, Code: rpc.CodeWalletNotSpecified},
	{Kind: wallet.ErrAlreadyLoaded, Code: rpc.CodeWalletAlreadyLoaded},
	{Kind: wallet.ErrAlreadyExists, Code: rpc.CodeWalletAlreadyExists},
	{Kind: wallet.ErrMisc, Code: rpc.CodeMisc},
	{Kind: wallet.ErrEventsPruned, Code: rpc.CodeInvalidParameter},
	// A call's context ends when its client hangs up (nobody reads the
	// reply) or the node stops: Core's reply to a call made while it
	// shuts down.
	{Kind: context.Canceled, Code: rpc.CodeClientNotConnected, Message: func(error) string { return "Shutting down" }},
}

// mapRescanError is MapError for rescanblockchain, whose abort Core words
// apart from an import's ("Rescan aborted." where importdescriptors says
// "Rescan aborted by user.").
func mapRescanError(err error) error {
	if errors.Is(err, scan.ErrAborted) {
		return rpc.NewError(rpc.CodeMisc, "Rescan aborted.")
	}
	return MapError(err)
}

// MapError turns an error from a domain package into the *rpc.Error the
// client sees. An *rpc.Error (anywhere in the chain) passes through; an
// error that matches no row is returned unchanged, and the server then
// answers -1 with a generic message and logs the details.
func MapError(err error) error {
	if err == nil {
		return nil
	}
	var re *rpc.Error
	if errors.As(err, &re) {
		return re
	}
	for _, row := range errTable {
		if errors.Is(err, row.Kind) {
			msg := err.Error()
			if row.Message != nil {
				msg = row.Message(err)
			}
			return rpc.NewError(row.Code, msg)
		}
	}
	return err
}
