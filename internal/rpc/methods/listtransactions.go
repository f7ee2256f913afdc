package methods

import (
	"context"

	"github.com/btcsuite/btcd/chainhash/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// txEntry is one listtransactions entry (and one gettransaction detail),
// in Core's field order. The transaction fields are left out of details.
type txEntry struct {
	Address     string      `json:"address,omitempty"`
	ParentDescs []string    `json:"parent_descs,omitempty"`
	Category    string      `json:"category"`
	Amount      rpc.Amount  `json:"amount"`
	Label       *string     `json:"label,omitempty"`
	Vout        uint32      `json:"vout"`
	Fee         *rpc.Amount `json:"fee,omitempty"`
	*txJSON
	Abandoned bool `json:"abandoned"`
}

// txJSON is Core's WalletTxToJSON.
type txJSON struct {
	Confirmations   int64    `json:"confirmations"`
	Generated       bool     `json:"generated,omitempty"`
	Trusted         *bool    `json:"trusted,omitempty"`
	BlockHash       string   `json:"blockhash,omitempty"`
	BlockHeight     *int32   `json:"blockheight,omitempty"`
	BlockIndex      *int32   `json:"blockindex,omitempty"`
	BlockTime       *int64   `json:"blocktime,omitempty"`
	TxID            string   `json:"txid"`
	WTxID           string   `json:"wtxid"`
	WalletConflicts []string `json:"walletconflicts"`
	MempoolConflict []string `json:"mempoolconflicts"`
	Time            int64    `json:"time"`
	TimeReceived    int64    `json:"timereceived"`
	Replaceable     string   `json:"bip125-replaceable"`
	// Comment, ReplacedBy, Replaces and To are Core's mapValue, written
	// in its key order: the send's comment, bumpfee's links, comment_to.
	Comment    string `json:"comment,omitempty"`
	ReplacedBy string `json:"replaced_by_txid,omitempty"`
	Replaces   string `json:"replaces_txid,omitempty"`
	To         string `json:"to,omitempty"`
}

// toTxJSON builds the transaction fields; rbf answers bip125-replaceable
// for an unconfirmed transaction.
func toTxJSON(in wallet.TxInfo, rbf *rbfCheck) *txJSON {
	t := &txJSON{Confirmations: in.Confirmations, Generated: in.Generated, Trusted: in.Trusted,
		TxID: in.TxID.String(), WTxID: in.WTxID.String(), WalletConflicts: []string{},
		MempoolConflict: hashStrings(in.MempoolConflicts), Time: in.Time, TimeReceived: in.TimeReceived, Replaceable: "no",
		Comment: in.Comment, To: in.To}
	t.WalletConflicts = hashStrings(in.WalletConflicts)
	if in.ReplacedBy != nil {
		t.ReplacedBy = in.ReplacedBy.String()
	}
	if in.Replaces != nil {
		t.Replaces = in.Replaces.String()
	}
	if in.Confirmed {
		h, i, bt := in.BlockHeight, in.BlockIndex, in.BlockTime
		t.BlockHash, t.BlockHeight, t.BlockIndex, t.BlockTime = in.BlockHash.String(), &h, &i, &bt
	} else {
		t.Replaceable = rbf.status(in)
	}
	return t
}

// hashStrings writes hashes as Core's hex, an empty array for none.
func hashStrings(hs []chainhash.Hash) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.String()
	}
	return out
}

func toTxEntry(e wallet.TxEntry, long bool, rbf *rbfCheck) txEntry {
	out := txEntry{Address: e.Address, ParentDescs: e.ParentDescs, Category: e.Category,
		Amount: rpc.Amount(e.Amount), Label: e.Label, Vout: e.Vout, Abandoned: e.Info.Abandoned}
	if e.Category == "receive" || e.Category == "generate" || e.Category == "immature" || e.Category == "orphan" {
		out.ParentDescs = nonNil(e.ParentDescs)
	} else {
		out.ParentDescs = nil
	}
	if e.Fee != nil {
		f := rpc.Amount(*e.Fee)
		out.Fee = &f
	}
	if long {
		out.txJSON = toTxJSON(e.Info, rbf)
	}
	return out
}

// newListTransactions returns the listtransactions method.
func newListTransactions(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "listtransactions",
		Category:    walletCategory,
		Description: "Returns the most recent wallet transaction entries, skipping the first 'skip', for every label (\"*\") or one.",
		Params: []rpc.Param{
			{Name: "label", Type: rpc.TypeString, Optional: true, Description: "Only entries of this label; \"*\" for all."},
			{Name: "count", Type: rpc.TypeNumber, Optional: true, Default: "10", Description: "How many entries."},
			{Name: "skip", Type: rpc.TypeNumber, Optional: true, Default: "0", Description: "How many of the most recent entries to skip."},
			{Name: "include_watchonly", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "No longer used."},
		},
		Result:   "[ { \"address\", \"category\", \"amount\", \"label\", \"vout\", \"confirmations\", \"txid\", ... }, ... ]",
		Examples: []string{"", `"*" 20 100`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			var label *string
			if req.Has(0) {
				s, err := req.String(0)
				if err != nil {
					return nil, err
				}
				// As Core: any label name but "*", which means every
				// label; the empty label cannot be asked for here.
				if s != "*" {
					if s == "" {
						return nil, rpc.NewError(rpc.CodeInvalidParameter, "Label argument must be a valid label name or \"*\".")
					}
					label = &s
				}
			}
			count, skip := 10, 0
			if req.Has(1) {
				if count, err = req.Int(1); err != nil {
					return nil, err
				}
			}
			if req.Has(2) {
				if skip, err = req.Int(2); err != nil {
					return nil, err
				}
			}
			if count < 0 {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Negative count")
			}
			if skip < 0 {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Negative from")
			}
			list, err := w.ListTransactions(ctx, label, count, skip)
			if err != nil {
				return nil, MapError(err)
			}
			out := make([]any, len(list))
			rbf := newRBFCheck(ctx, d)
			for i, e := range list {
				out[i] = toTxEntry(e, true, rbf).layout()
			}
			return out, nil
		},
	}
}
