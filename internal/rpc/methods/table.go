package methods

import (
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// Deps is what the methods need from the node. The node fills it in before
// the server starts; fields for the wallet manager and the chain backend
// join here as those packages land (each declared as an interface in this
// package, holding only what the methods call).
type Deps struct {
	// Net is the network the node runs on.
	Net *chaincfg.Params
	// Stop asks the node to shut down; it returns at once.
	Stop func()
	// StartTime is when the node started (uptime counts from it).
	StartTime time.Time
	// RPCInfo reports the server's active calls and the log path
	// (getrpcinfo); nil reads as no active calls and no log.
	RPCInfo func() rpc.Info
	// Wallets is the wallet manager; nil when the node runs without
	// wallets (wallet methods then answer "Method not found").
	Wallets *wallet.Manager
	// Chain follows the chain for the wallets; nil when the node runs
	// offline (no backend).
	Chain ChainService
	// Rescans holds the wallets' rescan reservations, online or not;
	// nil means one registry for the process.
	Rescans RescanReserver
	// Logging switches the debug level of the node's log subsystems (the
	// logging call); nil: the call changes no log.
	Logging LogControl
}

// All returns every method the node serves. To add a method, write its
// constructor (func newXxx(d *Deps) *rpc.Method) in its own file and add one
// line to the list below.
func All(d *Deps) []*rpc.Method {
	list := []*rpc.Method{
		// Control.
		newGetRPCInfo(d),
		newStop(d),
		newUptime(d),
		newGetMemoryInfo(d), newLogging(d), newGetZMQNotifications(d),
		// Util.
		newCreateMultisig(d), newDeriveAddresses(d), newGetDescriptorInfo(d), newValidateAddress(d),
		newSignMessageWithPrivKey(d), newVerifyMessage(d),
		// Blockchain.
		newGetBlockchainInfo(d),
		newGetBlockCount(d),
		// Node calls (nodecalls.go): answered from the chain backend.
		newGetNetworkInfo(d),
		newGetBestBlockHash(d), newGetBlock(d), newGetBlockFilter(d), newGetBlockHash(d),
		newGetBlockHeader(d), newGetBlockStats(d), newGetChainTips(d), newGetDeploymentInfo(d),
		newGetMempoolEntry(d), newGetMempoolInfo(d), newGetRawMempool(d), newGetTxOut(d),
		newGetTxOutProof(d), newVerifyTxOutProof(d), newScanTxOutSet(d),
		newGetRawTransaction(d), newSendRawTransaction(d), newTestMempoolAccept(d),
		newEstimateSmartFee(d), newGetIndexInfo(d),
		// Raw transactions.
		newCombineRawTransaction(d),
		newCreateRawTransaction(d),
		newDecodeRawTransaction(d),
		newDecodeScript(d),
		newSignRawTransactionWithKey(d),
		newAnalyzePSBT(d), newCombinePSBT(d), newConvertToPSBT(d), newCreatePSBT(d), newDecodePSBT(d), newDescriptorProcessPSBT(d),
		newFinalizePSBT(d), newJoinPSBTs(d), newUTXOUpdatePSBT(d),
		// Testing aids (hidden from the help list).
		newEcho(d),
		newEchoJSON(d),
		// Wallet.
		newBackupWallet(d),
		newCreateWallet(d),
		newEncryptWallet(d),
		newGetAddressesByLabel(d),
		newGetAddressInfo(d),
		newGetNewAddress(d),
		newGetRawChangeAddress(d),
		newGetWalletInfo(d),
		newImportDescriptors(d),
		newKeypoolRefill(d),
		newListDescriptors(d),
		newListLabels(d),
		newGetHDKeys(d), newCreateWalletDescriptor(d), newSimulateRawTransaction(d), newMigrateWallet(d), newWalletDisplayAddress(d), newEnumerateSigners(d),
		// Coin control and balances.
		newAbandonTransaction(d), newBumpFee(d, false), newBumpFee(d, true), newSendAll(d), newGetBalance(d), newLockUnspent(d), newListLockUnspent(d), newSetWalletFlag(d), newSetTxFee(d),
		// Wallet transactions and rescans.
		newAbortRescan(d),
		newGetBalances(d),
		newGetTransaction(d),
		newListTransactions(d), newListWalletEvents(d),
		// Payment detection (paydetect.go).
		newGetReceivedByAddress(d), newGetReceivedByLabel(d), newListReceivedByAddress(d),
		newListReceivedByLabel(d), newListSinceBlock(d), newListAddressGroupings(d),
		newImportPrunedFunds(d), newRemovePrunedFunds(d),
		newListUnspent(d),
		newSendToAddress(d), newSendMany(d), newFundRawTransaction(d), newWalletCreateFundedPSBT(d), newSend(d),
		newSignRawTransactionWithWallet(d), newSignMessage(d), newWalletProcessPSBT(d),
		newRescanBlockchain(d),
		newListWalletDir(d),
		newListWallets(d),
		newLoadWallet(d),
		newRestoreWallet(d),
		newSetLabel(d),
		newUnloadWallet(d),
		newWalletLock(d),
		newWalletPassphrase(d),
		newWalletPassphraseChange(d),
	}
	serializeSpending(d, list)
	// Forwarded to a bitcoind backend: the rest of Core's node tables.
	list = append(list, forwardedMethods(d, list)...)
	// help describes the whole table, itself included.
	return append(list, newHelp(&list))
}
