package coinselect

import (
	"fmt"

	"github.com/descwallet/descwallet/errkind"
)

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// Kind identifies one of Core's coin selection and funding failures. It
// satisfies the error interface so that errors.Is(err, InsufficientFunds)
// works on an *Error; its Error() is the kind's name, the message is the
// *Error's.
type Kind = errkind.Kind[tag]

const (
	// InsufficientFunds: the eligible coins cannot pay the target.
	InsufficientFunds = Kind("InsufficientFunds")
	// PresetInsufficient: add_inputs is false and the preset inputs do
	// not cover the target.
	PresetInsufficient = Kind("PresetInsufficient")
	// MaxWeightExceeded: every selection found was heavier than allowed.
	MaxWeightExceeded = Kind("MaxWeightExceeded")
	// PresetMaxWeight: the preset inputs plus the selected ones are
	// heavier than allowed.
	PresetMaxWeight = Kind("PresetMaxWeight")
	// WeightBelowNoInputs: the weight limit leaves no room for inputs.
	WeightBelowNoInputs = Kind("WeightBelowNoInputs")
	// WeightNoChange: the weight limit leaves no room for a change output.
	WeightNoChange = Kind("WeightNoChange")
	// LongChain: only coins with too long unconfirmed chains would do.
	LongChain = Kind("LongChain")
	// BumpFeeCluster: the backend could not compute ancestor bump fees.
	BumpFeeCluster = Kind("BumpFeeCluster")
	// MaxTxWeightRange: max_tx_weight is outside Core's bounds.
	MaxTxWeightRange = Kind("MaxTxWeightRange")
	// AmountTooSmall: a recipient's amount is dust.
	AmountTooSmall = Kind("AmountTooSmall")
	// ZeroTarget: nothing to pay, no fee and no preset input.
	ZeroTarget = Kind("ZeroTarget")
	// NotSolvable: a preset input's signed size is unknown.
	NotSolvable = Kind("NotSolvable")
	// TooSmallToPayFee: subtracting the fee made an output negative.
	TooSmallToPayFee = Kind("TooSmallToPayFee")
	// TooSmallAfterFee: subtracting the fee made an output dust.
	TooSmallAfterFee = Kind("TooSmallAfterFee")
	// TxTooLarge: the transaction is above the standard weight.
	TxTooLarge = Kind("TxTooLarge")
	// MaxFeeExceeded: the fee is above -maxtxfee.
	MaxFeeExceeded = Kind("MaxFeeExceeded")
	// Internal: an accounting invariant failed (a bug).
	Internal = Kind("Internal")
)

// kindMessages holds Core's message of each kind, with %d/%s placeholders
// for the kinds that carry details.
var kindMessages = map[Kind]string{
	InsufficientFunds:   "Insufficient funds",
	PresetInsufficient:  "The preselected coins total amount does not cover the transaction target. Please allow other inputs to be automatically selected or include more coins manually",
	MaxWeightExceeded:   "The inputs size exceeds the maximum weight. Please try sending a smaller amount or manually consolidating your wallet's UTXOs",
	PresetMaxWeight:     "The combination of the pre-selected inputs and the wallet automatic inputs selection exceeds the transaction maximum weight. Please try sending a smaller amount or manually consolidating your wallet's UTXOs",
	WeightBelowNoInputs: "Maximum transaction weight is less than transaction weight without inputs",
	WeightNoChange:      "Maximum transaction weight is too low, can not accommodate change output",
	LongChain:           "Unconfirmed UTXOs are available, but spending them creates a chain of transactions that will be rejected by the mempool",
	BumpFeeCluster:      "Failed to calculate bump fees, because unconfirmed UTXOs depend on an enormous cluster of unconfirmed transactions.",
	MaxTxWeightRange:    "Maximum transaction weight must be between %d and %d",
	AmountTooSmall:      "Transaction amount too small",
	ZeroTarget:          "Transaction requires one destination of non-zero value, a non-zero feerate, or a pre-selected input",
	NotSolvable:         "Not solvable pre-selected input %s",
	TooSmallToPayFee:    "The transaction amount is too small to pay the fee",
	TooSmallAfterFee:    "The transaction amount is too small to send after the fee has been deducted",
	TxTooLarge:          "Transaction too large",
	MaxFeeExceeded:      "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)",
	Internal:            "Internal bug detected: %s",
}

// Error is a coin selection failure: a Kind and Core's message (the
// Description). An empty Description is Core's empty util::Error, a
// selection that found nothing specific to say.
type Error = errkind.Error[tag]

func newError(k Kind, args ...any) *Error {
	msg := kindMessages[k]
	if len(args) > 0 {
		msg = fmt.Sprintf(msg, args...)
	}
	return errkind.New(k, msg)
}
