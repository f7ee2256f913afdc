package methods

import (
	"testing"
)

// Tests of Core's answers at its throw sites that descwallet answered
// differently: each asserts Core's exact code and message for the input
// that reaches the site, and where an input is wrong in two ways, the
// error of the check Core makes first.

// TestListTransactionsEmptyLabel: Core takes any label name or "*"; the
// empty label is refused before the count and skip are read.
func TestListTransactionsEmptyLabel(t *testing.T) {
	a := newAuditNode(t)
	w := wname("w")
	a.ok(nil, "createwallet", `["w"]`, `{"name":"w"}`)
	const msg = `Label argument must be a valid label name or "*".`
	a.fails(w, "listtransactions", `[""]`, -8, msg)
	a.fails(w, "listtransactions", `["", -1, -1]`, -8, msg)
	a.fails(w, "listtransactions", `{"label":""}`, -8, msg)
	a.ok(w, "listtransactions", `["*"]`, `[]`)
	a.ok(w, "listtransactions", `["l"]`, `[]`)
	a.fails(w, "listtransactions", `["*", -1, -1]`, -8, "Negative count")
}

// TestUnloadWalletNameChecks: Core's EnsureUniqueWalletName, the URI's
// wallet and the argument must agree, and one of them must be given.
func TestUnloadWalletNameChecks(t *testing.T) {
	a := newAuditNode(t)
	a.ok(nil, "createwallet", `["w1"]`, `{"name":"w1"}`)
	a.ok(nil, "createwallet", `["w2"]`, `{"name":"w2"}`)
	a.fails(nil, "unloadwallet", `[]`, -8, "Either the RPC endpoint wallet or the wallet name parameter must be provided")
	a.fails(nil, "unloadwallet", `[null]`, -8, "Either the RPC endpoint wallet or the wallet name parameter must be provided")
	a.fails(wname("w1"), "unloadwallet", `["w2"]`, -8, "The RPC endpoint wallet and the wallet name parameter specify different wallets")
	a.fails(nil, "unloadwallet", `["nope"]`, -18, "Requested wallet does not exist or is not loaded")
	a.ok(wname("w1"), "unloadwallet", `["w1"]`, `{}`)
	a.ok(nil, "unloadwallet", `["w2"]`, `{}`)
}

// TestPassphraseWithNullCharacter: a wrong passphrase holding a NUL byte
// gets Core's longer message (its versions before 25.0 cut passphrases at
// the first NUL); a right one holding a NUL works.
func TestPassphraseWithNullCharacter(t *testing.T) {
	a := newAuditNode(t)
	w := wname("enc")
	a.ok(nil, "createwallet", `["enc", false, false, "a\u0000b"]`, "")
	const unlockMsg = "Error: The wallet passphrase entered is incorrect. It contains a null character (ie - a zero byte). " +
		"If the passphrase was set with a version of this software prior to 25.0, please try again with only the " +
		"characters up to \u2014 but not including \u2014 the first null character. If this is successful, please set " +
		"a new passphrase to avoid this issue in the future."
	const changeMsg = "Error: The old wallet passphrase entered is incorrect. It contains a null character (ie - a zero byte). " +
		"If the old passphrase was set with a version of this software prior to 25.0, please try again with only the " +
		"characters up to \u2014 but not including \u2014 the first null character."
	a.fails(w, "walletpassphrase", `["a", 10]`, -14, "Error: The wallet passphrase entered was incorrect.")
	a.fails(w, "walletpassphrase", `["a\u0000c", 10]`, -14, unlockMsg)
	a.fails(w, "walletpassphrasechange", `["b", "x"]`, -14, "Error: The wallet passphrase entered was incorrect.")
	a.fails(w, "walletpassphrasechange", `["a\u0000c", "x"]`, -14, changeMsg)
	a.ok(w, "walletpassphrase", `["a\u0000b", 10]`, `null`)
	a.ok(w, "walletpassphrasechange", `["a\u0000b", "x"]`, `null`)
}
