package methods

import (
	"strings"
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

// TestListUnspentQueryNulls: query_options members given as null are
// read as Core reads them (options.exists is true for a null), a count
// must be an integer, and the addresses are checked before the options.
func TestListUnspentQueryNulls(t *testing.T) {
	a := newAuditNode(t)
	w := wname("w")
	a.ok(nil, "createwallet", `["w"]`, `{"name":"w"}`)
	q := func(opts string) string { return `[0, 9999999, [], true, ` + opts + `]` }
	a.fails(w, "listunspent", q(`{"minimumAmount":null}`), -3, "Amount is not a number or string")
	a.fails(w, "listunspent", q(`{"maximumCount":null}`), -3, "JSON value of type null is not of expected type number")
	a.fails(w, "listunspent", q(`{"include_immature_coinbase":null}`), -3, "JSON value of type null is not of expected type bool")
	a.fails(w, "listunspent", q(`{"maximumCount":1.5}`), -1, "JSON integer out of range")
	a.fails(w, "listunspent", `[0, 9999999, ["x"], true, {"foo":1}]`, -5, "Invalid Bitcoin address: x")
}

// TestKeypoolRefillChecks: Core checks the size, then that the wallet is
// unlocked, and fails when the key pool of the active descriptors is
// smaller than the size asked for (a wallet without any).
func TestKeypoolRefillChecks(t *testing.T) {
	a := newAuditNode(t)
	for _, c := range []string{`["w"]`, `["wo", true]`, `["bl", false, true]`, `["enc", false, false, "pass"]`} {
		a.ok(nil, "createwallet", c, "")
	}
	a.fails(wname("bl"), "keypoolrefill", `[5]`, -4, "Error refreshing keypool.")
	a.ok(wname("bl"), "keypoolrefill", `[]`, `null`)
	a.fails(wname("wo"), "keypoolrefill", `[1]`, -4, "Error refreshing keypool.")
	a.ok(wname("wo"), "keypoolrefill", `[0]`, `null`)
	a.ok(wname("w"), "keypoolrefill", `[2000]`, `null`)
	a.fails(wname("enc"), "keypoolrefill", `[-1]`, -8, "Invalid parameter, expected valid size.")
	a.fails(wname("enc"), "keypoolrefill", `[]`, -13, "Error: Please enter the wallet passphrase with walletpassphrase first.")
	a.ok(wname("enc"), "walletpassphrase", `["pass", 100]`, `null`)
	a.ok(wname("enc"), "keypoolrefill", `[5]`, `null`)
}

// TestImportPrunedFundsProofChecks: Core reads the proof's hex, then the
// merkle block (a short one is a stream error, -1), then compares the
// root its partial tree gives, the zero hash for a tree it cannot read,
// with the header's, then looks the block up.
func TestImportPrunedFundsProofChecks(t *testing.T) {
	a := newAuditNode(t)
	w := wname("w")
	a.ok(nil, "createwallet", `["w"]`, `{"name":"w"}`)
	tx := "02000000" + "01" + "01" + strings.Repeat("00", 31) + "00000000" + "00" + "ffffffff" +
		"01" + "00e1f50500000000" + "16" + "0014fe4d9d5a7a5969f9f9caddff6870231ac79213d2" + "00000000"
	zeroHeader := strings.Repeat("00", 80)
	oneHeader := strings.Repeat("00", 36) + strings.Repeat("11", 32) + strings.Repeat("00", 12)
	call := func(proof string) string { return `["` + tx + `", "` + proof + `"]` }
	a.fails(w, "importprunedfunds", `["00", "00"]`, -22, "TX decode failed. Make sure the tx has at least one input.")
	a.fails(w, "importprunedfunds", call(""), -8, "proof must be hexadecimal string (not '')")
	a.fails(w, "importprunedfunds", call("00"), -1, "DataStream::read(): end of data: iostream error")
	a.fails(w, "importprunedfunds", call(zeroHeader+"0100000000"), -1, "DataStream::read(): end of data: iostream error")
	// No transactions: an unreadable tree, the zero hash.
	a.fails(w, "importprunedfunds", call(oneHeader+"000000000000"), -5, "Something wrong with merkleblock")
	a.fails(w, "importprunedfunds", call(zeroHeader+"000000000000"), -5, "Block not found in chain")
	// One transaction whose hash is the header's root.
	a.fails(w, "importprunedfunds", call(zeroHeader+"01000000"+"01"+strings.Repeat("00", 32)+"0101"), -5, "Block not found in chain")
}

// TestSendAllFeeOverMaximum: sendall's own check of the fee against
// -maxtxfee answers with Core's TransactionError text (v30 wording), before
// it finds the wallet holds nothing.
func TestSendAllFeeOverMaximum(t *testing.T) {
	n := newSpendNode(t, t.TempDir())
	t.Cleanup(func() { n.mgr.Close() })
	a := &auditNode{t: t, n: n, dir: n.dir}
	w := wname("w")
	a.ok(nil, "createwallet", `["w"]`, `{"name":"w"}`)
	const to = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
	a.fails(w, "sendall", `[["`+to+`"], null, null, 1000000]`, -4, "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)")
	a.fails(w, "sendall", `[["`+to+`"], null, null, 100000]`, -6,
		"Total value of UTXO pool too low to pay for transaction. Try using lower feerate or excluding uneconomic UTXOs with 'send_max' option.")
}
