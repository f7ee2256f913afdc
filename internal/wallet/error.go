package wallet

// ErrorKind identifies a kind of wallet failure. Each kind corresponds to one
// RPC error code of Bitcoin Core; the Error carrying it holds Core's exact
// message. ErrorKind satisfies error so errors.Is(err, wallet.ErrX) works.
type ErrorKind string

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

// Error satisfies the error interface.
func (k ErrorKind) Error() string { return string(k) }

// Error is a wallet failure: its kind, the message a client sees (Core's
// text) and the underlying error, if any.
type Error struct {
	Kind        ErrorKind
	Description string
	Err         error
}

// Error returns the client-visible message.
func (e *Error) Error() string { return e.Description }

// Unwrap returns the kind and the underlying error.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

func walletErr(kind ErrorKind, desc string) error {
	return &Error{Kind: kind, Description: desc}
}

func storageErr(err error) error {
	return &Error{Kind: ErrStorage, Description: "wallet database error", Err: err}
}
