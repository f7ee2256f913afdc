package wallet

import "github.com/descwallet/descwallet/errkind"

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// ErrorKind identifies a kind of wallet failure. Each kind corresponds to one
// RPC error code of Bitcoin Core; the Error carrying it holds Core's exact
// message. ErrorKind satisfies error so errors.Is(err, wallet.ErrX) works.
type ErrorKind = errkind.Kind[tag]

const (
	// ErrWallet is Core's general wallet error (RPC_WALLET_ERROR, -4): a
	// rule of the wallet refuses the request (an import that cannot be
	// added, no keys to hand out, a name that exists).
	ErrWallet = ErrorKind("ErrWallet")

	// ErrInvalidParameter is a request argument the wallet rejects
	// (RPC_INVALID_PARAMETER, -8): ranges, next_index, labels where none
	// are allowed.
	ErrInvalidParameter = ErrorKind("ErrInvalidParameter")

	// ErrInvalidAddressOrKey is a descriptor, key or address that does not
	// parse, or an unknown address type (RPC_INVALID_ADDRESS_OR_KEY, -5).
	ErrInvalidAddressOrKey = ErrorKind("ErrInvalidAddressOrKey")

	// ErrInvalidLabel is the label "*" (RPC_WALLET_INVALID_LABEL_NAME,
	// -11).
	ErrInvalidLabel = ErrorKind("ErrInvalidLabel")

	// ErrKeypoolRanOut is a request for an address the wallet has no
	// descriptor for, or none left (RPC_WALLET_KEYPOOL_RAN_OUT, -12).
	ErrKeypoolRanOut = ErrorKind("ErrKeypoolRanOut")

	// ErrUnlockNeeded is an operation on private keys of a locked wallet
	// (RPC_WALLET_UNLOCK_NEEDED, -13).
	ErrUnlockNeeded = ErrorKind("ErrUnlockNeeded")

	// ErrPassphraseIncorrect is a wrong wallet passphrase
	// (RPC_WALLET_PASSPHRASE_INCORRECT, -14).
	ErrPassphraseIncorrect = ErrorKind("ErrPassphraseIncorrect")

	// ErrWrongEncState is a passphrase call on a wallet in the other
	// encryption state (RPC_WALLET_WRONG_ENC_STATE, -15).
	ErrWrongEncState = ErrorKind("ErrWrongEncState")

	// ErrEncryptionFailed is a wallet that cannot be encrypted
	// (RPC_WALLET_ENCRYPTION_FAILED, -16).
	ErrEncryptionFailed = ErrorKind("ErrEncryptionFailed")

	// ErrNotFound is a wallet that is not loaded or does not exist
	// (RPC_WALLET_NOT_FOUND, -18).
	ErrNotFound = ErrorKind("ErrNotFound")

	// ErrNotSpecified is a wallet call on "/" while several wallets are
	// loaded (RPC_WALLET_NOT_SPECIFIED, -19).
	ErrNotSpecified = ErrorKind("ErrNotSpecified")

	// ErrAlreadyLoaded is a load of a wallet that is loaded
	// (RPC_WALLET_ALREADY_LOADED, -35).
	ErrAlreadyLoaded = ErrorKind("ErrAlreadyLoaded")

	// ErrAlreadyExists is a restore into a wallet, or a wallet folder,
	// that exists (RPC_WALLET_ALREADY_EXISTS, -36).
	ErrAlreadyExists = ErrorKind("ErrAlreadyExists")

	// ErrMisc is Core's catch-all (RPC_MISC_ERROR, -1) for failures whose
	// message the client should see.
	ErrMisc = ErrorKind("ErrMisc")

	// ErrNotSupported is a request for a feature this version does not
	// have yet (reported as RPC_WALLET_ERROR, -4).
	ErrNotSupported = ErrorKind("ErrNotSupported")

	// ErrEventsPruned is a cursor of the event log older than what
	// -eventretention keeps (reported as RPC_INVALID_PARAMETER, -8).
	ErrEventsPruned = ErrorKind("ErrEventsPruned")

	// ErrStorage is a failure of the wallet database. The details are
	// logged; the client sees a generic message.
	ErrStorage = ErrorKind("ErrStorage")
)

// Error is a wallet failure: its kind, the message a client sees (Core's
// text) and the underlying error, if any. Its message is the description
// alone: the cause (a database failure, say) is for the log, not the client.
type Error = errkind.Error[tag]

func walletErr(kind ErrorKind, desc string) error { return errkind.New(kind, desc) }

func storageErr(err error) error {
	return errkind.Wrap(ErrStorage, "wallet database error", err)
}
