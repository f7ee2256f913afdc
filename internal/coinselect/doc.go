// Package coinselect owns coin selection: given the wallet's candidate coins
// and a payment, it chooses the inputs, the change and the fee exactly as
// Bitcoin Core v30 does (src/wallet/coinselection.cpp and the selection half
// of src/wallet/spend.cpp). It is pure: no wallet, storage, chain or RPC; the
// caller supplies every coin with its value, script, output type, depth,
// mempool ancestry and signed input weight (the descriptor's maximum
// satisfaction weight, see InputWeight), and every fee rate.
//
// # Model
//
// A Coin's fee is its signed input size (vbytes, rounded up from the
// weight) at the target fee rate, plus any fee needed to bump its unconfirmed
// ancestors; its effective value is its value minus that fee. Its long-term
// fee is the same size at the long-term rate (Core's -consolidatefeerate);
// fee minus long-term fee is what spending it now wastes, or saves.
//
// Coins are put in OutputGroups: one per coin, or with avoid_partial_spends
// one per scriptPubKey (and output type) of at most 100 coins
// (OUTPUT_GROUP_MAX_ENTRIES). Groups are tried against Core's ladder of
// eligibility filters (conf_mine/conf_theirs 1/6, 1/1, then with
// -spendzeroconfchange 0/1 with growing ancestor limits, partial groups,
// unsafe coins with include_unsafe, unlimited chains unless
// -walletrejectlongchains). For each filter, each output type is tried on its
// own and the least wasteful result wins; only when no single type suffices
// (and not at the first filter) are types mixed.
//
// For one pool Core runs Branch and Bound (changeless, skipped when fees are
// subtracted from outputs), Knapsack, CoinGrinder (only when the fee rate is
// above three times the long-term rate) and Single Random Draw, and keeps the
// result with the least waste (a tie goes to the one with more inputs, then
// to the earliest algorithm in that order). Waste is the inputs' fee minus
// their long-term fee, plus the cost of change when change is made, or else
// the excess given to the miners.
//
// SelectCoins is the selection step alone (Core's SelectCoins with preset
// inputs and add_inputs). Fund wraps it the way CreateTransactionInternal
// does: it derives the change fee, cost of change, randomised change target
// (GenerateChangeTarget), minimum viable change and discard threshold from
// the request, selects, then sizes the transaction, gives any overpayment to
// the change, subtracts the fee from the chosen outputs when asked, and
// checks the size and -maxtxfee limits.
//
// Randomness (Knapsack, Single Random Draw, the change target) comes from the
// caller's *rand.Rand, so a seed reproduces a selection.
//
// # Errors
//
// Failures are *Error values carrying a Kind and Core's message, word for
// word; test them with errors.Is(err, coinselect.InsufficientFunds) and so
// on. The wallet maps kinds to RPC codes (Core answers all of them with
// RPC_WALLET_INSUFFICIENT_FUNDS, -6, or RPC_WALLET_ERROR, -4, depending on
// the call).
//
// # Concurrency
//
// Functions keep no state between calls; a *rand.Rand is not safe for
// concurrent use, so concurrent calls need their own.
package coinselect
