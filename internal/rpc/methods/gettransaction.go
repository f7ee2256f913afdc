package methods

import (
	"context"

	"github.com/btcsuite/btcd/chainhash/v2"

	"github.com/descwallet/descwallet/internal/rpc"
)

// detailEntry is one element of gettransaction's details.
type detailEntry struct {
	Address     string      `json:"address,omitempty"`
	Category    string      `json:"category"`
	Amount      rpc.Amount  `json:"amount"`
	Label       *string     `json:"label,omitempty"`
	Vout        uint32      `json:"vout"`
	Fee         *rpc.Amount `json:"fee,omitempty"`
	Abandoned   *bool       `json:"abandoned,omitempty"`
	ParentDescs []string    `json:"parent_descs,omitempty"`
}

type getTxResult struct {
	Amount rpc.Amount  `json:"amount"`
	Fee    *rpc.Amount `json:"fee,omitempty"`
	*txJSON
	Details            []detailEntry `json:"details"`
	Hex                string        `json:"hex"`
	Decoded            *decodedTx    `json:"decoded,omitempty"`
	LastProcessedBlock lastBlock     `json:"lastprocessedblock"`
}

// newGetTransaction returns the gettransaction method.
func newGetTransaction(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "gettransaction",
		Category:    walletCategory,
		Description: "Returns what the wallet knows of one of its transactions.",
		Params: []rpc.Param{
			{Name: "txid", Type: rpc.TypeString, Description: "The transaction id."},
			{Name: "include_watchonly", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "No longer used."},
			{Name: "verbose", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Add the decoded transaction (as decoderawtransaction shows it, change outputs marked) as \"decoded\"."},
		},
		Result:   "{ \"amount\", \"fee\", \"confirmations\", \"blockhash\", ..., \"txid\", \"details\": [...], \"hex\", \"lastprocessedblock\" }",
		Examples: []string{`"1075db55d416d3ca199f55b6084e2115b9345e16c5cf302fc80e9d5fbf5d48d"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			txid, err := parseTxID(s, "txid")
			if err != nil {
				return nil, err
			}
			if _, err := optBoolArg(req, 1, true); err != nil {
				return nil, err
			}
			verbose, err := optBoolArg(req, 2, false)
			if err != nil {
				return nil, err
			}
			det, err := w.Transaction(ctx, txid)
			if err != nil {
				return nil, MapError(err)
			}
			res := getTxResult{Amount: rpc.Amount(det.Amount), txJSON: toTxJSON(det.Info, newRBFCheck(ctx, d)),
				Details: []detailEntry{}, Hex: det.Hex, LastProcessedBlock: lastProcessedAt(d, det.Last, det.HasLast)}
			if det.Fee != nil {
				f := rpc.Amount(*det.Fee)
				res.Fee = &f
			}
			if verbose && det.Info.Tx != nil {
				res.Decoded = txToJSON(det.Info.Tx, d.Net, txOptions{})
				for i, o := range det.Info.Tx.TxOut {
					res.Decoded.Vout[i].IsChange = w.IsChange(o.PkScript)
				}
			}
			for _, e := range det.Details {
				de := detailEntry{Address: e.Address, Category: e.Category, Amount: rpc.Amount(e.Amount),
					Label: e.Label, Vout: e.Vout}
				if e.Fee != nil {
					f := rpc.Amount(*e.Fee)
					de.Fee = &f
					ab := det.Info.Abandoned
					de.Abandoned = &ab
				} else {
					de.ParentDescs = nonNil(e.ParentDescs)
				}
				res.Details = append(res.Details, de)
			}
			return res, nil
		},
	}
}

// parseTxID reads a transaction id as Core's ParseHashV: 64 hex digits.
func parseTxID(s, name string) (chainhash.Hash, error) {
	if len(s) != 64 {
		return chainhash.Hash{}, rpc.NewError(rpc.CodeInvalidParameter,
			name+" must be of length 64 (not "+itoa(len(s))+", for '"+s+"')")
	}
	h, err := chainhash.NewHashFromStr(s)
	if err != nil {
		return chainhash.Hash{}, rpc.NewError(rpc.CodeInvalidParameter,
			name+" must be hexadecimal string (not '"+s+"')")
	}
	return *h, nil
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
