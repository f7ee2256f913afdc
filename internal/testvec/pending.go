package testvec

// Feature names a capability that some corpus cases need and that is not
// built yet. Each has exactly one list of case ids below.
type Feature string

// pending maps each missing feature to the ids of the corpus cases that need
// it. Delete a feature's entry when it lands: its cases then run.
var pending = map[Feature][]string{
	FeatureMuSig: {
		// core_rpc/wallet.json: expanding tr(musig(...)) needs key
		// aggregation.
		"musig-imports",
	},
	FeatureEncryption: {
		// core_rpc/wallet.json
		"encrypted-wallet-locked",
	},
	FeatureSigner: {
		// descriptors_valid.json signing checks of tr() with a script
		// tree: the signer does not yet sign with taproot trees.
		"core-desc-L975:signing", "core-desc-L976:signing",
		// ...and of miniscript: the signer does not yet satisfy miniscript.
		"core-desc-L1095:signing", "core-desc-L1106:signing", "core-desc-L1109:signing",
		"core-desc-L1112:signing", "core-desc-L1117:signing", "core-desc-L1119:signing",
	},
	FeatureMiniscript: {
		// descriptors_valid.json
		"core-desc-L876", "core-desc-L901", "core-desc-L1091", "core-desc-L1095",
		"core-desc-L1104", "core-desc-L1106", "core-desc-L1108", "core-desc-L1109",
		"core-desc-L1111", "core-desc-L1112", "core-desc-L1117", "core-desc-L1119",
		"core-desc-L1121", "core-desc-L1123", "bip386-valid-6",
		// descriptors_invalid.json
		"core-desc-L958", "core-desc-L1073", "core-desc-L1075", "core-desc-L1078",
		"core-desc-L1082", "core-desc-L1084", "core-desc-L1088", "core-desc-L1261",
		// core_rpc/stateless.json
		"derive-invalid-miniscript-invalid-types", "derive-invalid-miniscript-malleable",
		"derive-invalid-miniscript-no-signature-hash", "derive-invalid-miniscript-or_b-invalid",
		"derive-invalid-miniscript-resource-limits", "derive-invalid-miniscript-timelock-mix",
		"derive-invalid-miniscript-top-level", "derive-invalid-miniscript-unsatisfiable",
		"derive-invalid-tr-leaf-no-signature", "derive-tr-miniscript-leaves", "derive-wsh-after",
		"derive-wsh-and_v-older", "derive-wsh-or_b", "derive-wsh-or_d-timelocked-recovery",
		"derive-wsh-sha256-lock", "derive-wsh-thresh", "gdi-invalid-miniscript-malleable",
		"gdi-invalid-miniscript-no-signature", "gdi-invalid-miniscript-or_c-not-sane",
		"gdi-invalid-miniscript-resource-limits", "gdi-invalid-miniscript-unsatisfiable",
		"gdi-tr-and_v-older-leaf", "gdi-tr-pkh-leaf", "gdi-wsh-hash160-or_i",
		"gdi-wsh-miniscript-60-keys", "gdi-wsh-miniscript-ranged", "gdi-wsh-or_b",
		"gdi-wsh-or_d-timelocked-recovery", "gdi-wsh-sha256-lock",
		"derive-invalid-musig-in-wsh-miniscript",
	},
}

// FeatureMuSig is musig() key aggregation (BIP 327) when expanding
// descriptors.
const FeatureMuSig Feature = "musig"

// FeatureEncryption is wallet encryption (createwallet with a passphrase,
// locked wallets, walletpassphrase).
const FeatureEncryption Feature = "encryption"

// FeatureMiniscript is miniscript inside wsh() and tr() leaves (parsing,
// scripts, strings, inference).
const FeatureMiniscript Feature = "miniscript"

// Pending reports whether the corpus case id waits on a missing feature, and
// which one.
func Pending(id string) (Feature, bool) {
	for f, ids := range pending {
		for _, x := range ids {
			if x == id {
				return f, true
			}
		}
	}
	return "", false
}

// PendingIDs returns the case ids that wait on feature f.
func PendingIDs(f Feature) []string { return pending[f] }

// FeatureSigner is signing that internal/sign does not do yet; entries are
// "<case id>:signing" for the signing checks of descriptor vectors.
const FeatureSigner Feature = "signer"
