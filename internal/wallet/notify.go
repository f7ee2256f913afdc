package wallet

import "github.com/btcsuite/btcd/chainhash/v2"

// TxNotice tells that a wallet transaction came in or changed state, once
// the change is in the database: Core's walletnotify moment (AddToWallet
// of a new or updated transaction, and a block disconnected).
type TxNotice struct {
	// Wallet is the wallet's name.
	Wallet string
	// TxID is the transaction.
	TxID chainhash.Hash
	// Height is the height of the block holding it, -1 when it is
	// unconfirmed; BlockHash is that block's hash (zero when unconfirmed).
	Height    int32
	BlockHash chainhash.Hash
}

// Confirmed reports whether the transaction is in a block.
func (n TxNotice) Confirmed() bool { return n.Height >= 0 }

func noticeOf(r TxRecord) TxNotice {
	return TxNotice{TxID: r.TxID, Height: r.Height, BlockHash: r.BlockHash}
}

// notifyTxs hands the notices to the configured hook, if any. The hook
// must not block (it queues); it is called with no wallet lock held.
func (w *Wallet) notifyTxs(ns []TxNotice) {
	if w.cfg.TxNotify == nil {
		return
	}
	for _, n := range ns {
		n.Wallet = w.cfg.Name
		w.cfg.TxNotify(n)
	}
}
