package sign

import "github.com/btcsuite/btcd/txscript/v2"

// scriptErrUnknown is Core's text for SCRIPT_ERR_UNKNOWN_ERROR.
const scriptErrUnknown = "unknown error"

// Core's ScriptErrorString texts, written down once and keyed by the btcd
// error code that stands for the same failure.
const (
	seEvalFalse         = "Script evaluated without error but finished with a false/empty top stack element"
	seVerify            = "Script failed an OP_VERIFY operation"
	seEqualVerify       = "Script failed an OP_EQUALVERIFY operation"
	seCheckMultisigVfy  = "Script failed an OP_CHECKMULTISIGVERIFY operation"
	seCheckSigVerify    = "Script failed an OP_CHECKSIGVERIFY operation"
	seNumEqualVerify    = "Script failed an OP_NUMEQUALVERIFY operation"
	seScriptSize        = "Script is too big"
	sePushSize          = "Push value size limit exceeded"
	seOpCount           = "Operation limit exceeded"
	seStackSize         = "Stack size limit exceeded"
	seSigCount          = "Signature count negative or greater than pubkey count"
	sePubkeyCount       = "Pubkey count negative or limit exceeded"
	seBadOpcode         = "Opcode missing or not understood"
	seDisabledOpcode    = "Attempted to use a disabled opcode"
	seOpReturn          = "OP_RETURN was encountered"
	seUnbalancedCond    = "Invalid OP_IF construction"
	seNegativeLocktime  = "Negative locktime"
	seUnsatisfiedLock   = "Locktime requirement not satisfied"
	seSigHashType       = "Signature hash type missing or not understood"
	seSigDER            = "Non-canonical DER signature"
	seMinimalData       = "Data push larger than necessary"
	seSigPushOnly       = "Only push operators allowed in signatures"
	seSigHighS          = "Non-canonical signature: S value is unnecessarily high"
	seSigNullDummy      = "Dummy CHECKMULTISIG argument must be zero"
	seMinimalIf         = "OP_IF/NOTIF argument must be minimal"
	seDiscourageNOPs    = "NOPx reserved for soft-fork upgrades"
	seDiscourageWitVer  = "Witness version reserved for soft-fork upgrades"
	seDiscourageTapVer  = "Taproot version reserved for soft-fork upgrades"
	seDiscourageSuccess = "OP_SUCCESSx reserved for soft-fork upgrades"
	seDiscouragePubType = "Public key version reserved for soft-fork upgrades"
	sePubKeyType        = "Public key is neither compressed or uncompressed"
	seCleanStack        = "Stack size must be exactly one after execution"
	seWitWrongLength    = "Witness program has incorrect length"
	seWitEmpty          = "Witness program was passed an empty witness"
	seWitMismatch       = "Witness program hash mismatch"
	seWitMalleated      = "Witness requires empty scriptSig"
	seWitMalleatedP2SH  = "Witness requires only-redeemscript scriptSig"
	seWitUnexpected     = "Witness provided for non-witness script"
	seWitPubKeyType     = "Using non-compressed keys in segwit"
	seSchnorrSigSize    = "Invalid Schnorr signature size"
	seSchnorrSig        = "Invalid Schnorr signature"
	seControlBlockSize  = "Invalid Taproot control block size"
	seTapscriptValidity = "Too much signature validation relative to witness weight"
	seTapscriptMultisig = "OP_CHECKMULTISIG(VERIFY) is not available in tapscript"
	seCodeSeparator     = "Using OP_CODESEPARATOR in non-witness script"
	seSigFindAndDelete  = "Signature is found in scriptCode"
)

// scriptErrorText maps btcd's script error codes to Core's texts. Codes
// that have no counterpart in Core's engine (API misuse) are absent and
// read as "unknown error"; so is a number overflow, which Core's engine
// reports as SCRIPT_ERR_UNKNOWN_ERROR.
var scriptErrorText = map[txscript.ErrorCode]string{
	txscript.ErrEarlyReturn:                         seOpReturn,
	txscript.ErrEmptyStack:                          seEvalFalse,
	txscript.ErrEvalFalse:                           seEvalFalse,
	txscript.ErrScriptTooBig:                        seScriptSize,
	txscript.ErrElementTooBig:                       sePushSize,
	txscript.ErrTooManyOperations:                   seOpCount,
	txscript.ErrStackOverflow:                       seStackSize,
	txscript.ErrInvalidPubKeyCount:                  sePubkeyCount,
	txscript.ErrInvalidSignatureCount:               seSigCount,
	txscript.ErrVerify:                              seVerify,
	txscript.ErrEqualVerify:                         seEqualVerify,
	txscript.ErrNumEqualVerify:                      seNumEqualVerify,
	txscript.ErrCheckSigVerify:                      seCheckSigVerify,
	txscript.ErrCheckMultiSigVerify:                 seCheckMultisigVfy,
	txscript.ErrDisabledOpcode:                      seDisabledOpcode,
	txscript.ErrReservedOpcode:                      seBadOpcode,
	txscript.ErrMalformedPush:                       seBadOpcode,
	txscript.ErrUnbalancedConditional:               seUnbalancedCond,
	txscript.ErrMinimalData:                         seMinimalData,
	txscript.ErrInvalidSigHashType:                  seSigHashType,
	txscript.ErrSigTooShort:                         seSigDER,
	txscript.ErrSigTooLong:                          seSigDER,
	txscript.ErrSigInvalidSeqID:                     seSigDER,
	txscript.ErrSigInvalidDataLen:                   seSigDER,
	txscript.ErrSigMissingSTypeID:                   seSigDER,
	txscript.ErrSigMissingSLen:                      seSigDER,
	txscript.ErrSigInvalidSLen:                      seSigDER,
	txscript.ErrSigInvalidRIntID:                    seSigDER,
	txscript.ErrSigZeroRLen:                         seSigDER,
	txscript.ErrSigNegativeR:                        seSigDER,
	txscript.ErrSigTooMuchRPadding:                  seSigDER,
	txscript.ErrSigInvalidSIntID:                    seSigDER,
	txscript.ErrSigZeroSLen:                         seSigDER,
	txscript.ErrSigNegativeS:                        seSigDER,
	txscript.ErrSigTooMuchSPadding:                  seSigDER,
	txscript.ErrSigHighS:                            seSigHighS,
	txscript.ErrNotPushOnly:                         seSigPushOnly,
	txscript.ErrSigNullDummy:                        seSigNullDummy,
	txscript.ErrPubKeyType:                          sePubKeyType,
	txscript.ErrCleanStack:                          seCleanStack,
	txscript.ErrWitnessMalleated:                    seWitMalleated,
	txscript.ErrWitnessMalleatedP2SH:                seWitMalleatedP2SH,
	txscript.ErrDiscourageUpgradableNOPs:            seDiscourageNOPs,
	txscript.ErrNegativeLockTime:                    seNegativeLocktime,
	txscript.ErrUnsatisfiedLockTime:                 seUnsatisfiedLock,
	txscript.ErrMinimalIf:                           seMinimalIf,
	txscript.ErrDiscourageUpgradableWitnessProgram:  seDiscourageWitVer,
	txscript.ErrWitnessProgramEmpty:                 seWitEmpty,
	txscript.ErrWitnessProgramMismatch:              seWitMismatch,
	txscript.ErrWitnessProgramWrongLength:           seWitWrongLength,
	txscript.ErrWitnessUnexpected:                   seWitUnexpected,
	txscript.ErrWitnessPubKeyType:                   seWitPubKeyType,
	txscript.ErrDiscourageOpSuccess:                 seDiscourageSuccess,
	txscript.ErrDiscourageUpgradeableTaprootVersion: seDiscourageTapVer,
	txscript.ErrTapscriptCheckMultisig:              seTapscriptMultisig,
	txscript.ErrDiscourageUpgradeablePubKeyType:     seDiscouragePubType,
	txscript.ErrTaprootSigInvalid:                   seSchnorrSig,
	txscript.ErrTaprootMerkleProofInvalid:           seWitMismatch,
	txscript.ErrTaprootOutputKeyParityMismatch:      seWitMismatch,
	txscript.ErrControlBlockTooSmall:                seControlBlockSize,
	txscript.ErrControlBlockTooLarge:                seControlBlockSize,
	txscript.ErrControlBlockInvalidLength:           seControlBlockSize,
	txscript.ErrInvalidTaprootSigLen:                seSchnorrSigSize,
	txscript.ErrTaprootPubkeyIsEmpty:                sePubKeyType,
	txscript.ErrTaprootMaxSigOps:                    seTapscriptValidity,
	txscript.ErrNonConstScriptCode:                  seSigFindAndDelete,
	txscript.ErrCodeSeparator:                       seCodeSeparator,
}
