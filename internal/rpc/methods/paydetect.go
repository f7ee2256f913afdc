package methods

import (
	"context"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// Payment detection: listsinceblock, getreceivedbyaddress,
// getreceivedbylabel, listreceivedbyaddress and listreceivedbylabel, as
// Core's wallet/rpc/transactions.cpp and coins.cpp answer them.

// sinceBlockResult is listsinceblock's reply; Removed is left out when
// include_removed is false.
type sinceBlockResult struct {
	Transactions []any  `json:"transactions"`
	Removed      *[]any `json:"removed,omitempty"`
	LastBlock    string `json:"lastblock"`
}

// labelArg reads a label argument as Core's LabelFromValue.
func labelArg(req *rpc.Request, i int) (string, error) {
	s, err := req.String(i)
	if err != nil {
		return "", err
	}
	if s == "*" {
		return "", rpc.NewError(rpc.CodeWalletInvalidLabelName, "Invalid label name")
	}
	return s, nil
}

// optIntArg reads an optional integer argument, def when absent or null.
func optIntArg(req *rpc.Request, i int, def int64) (int64, error) {
	if !req.Has(i) {
		return def, nil
	}
	return req.Int64(i)
}

// optBoolArg reads an optional bool argument, def when absent or null.
func optBoolArg(req *rpc.Request, i int, def bool) (bool, error) {
	if !req.Has(i) {
		return def, nil
	}
	return req.Bool(i)
}

// forkPoint finds where block hash meets the best chain: the height of
// the common ancestor, the block's own height, and the blocks from hash
// down to just above the ancestor (empty when hash is in the best chain).
// inWallet is set when hash is one of the wallet's last processed blocks,
// which wallet.SinceBlock checks again in its own view.
func forkPoint(ctx context.Context, d *Deps, w *wallet.Wallet, hash chainhash.Hash) (height, altHeight int32, stale []chainhash.Hash, inWallet bool, err error) {
	if recent, err := w.RecentBlocks(ctx); err == nil {
		for _, b := range recent {
			if chainhash.Hash(b.Hash) == hash {
				return b.Height, b.Height, nil, true, nil
			}
		}
	}
	height, altHeight, stale, err = chainForkPoint(ctx, d, hash)
	return height, altHeight, stale, false, err
}

// chainForkPoint is forkPoint from the node's chain, for a block that is
// not one of the wallet's last processed blocks.
func chainForkPoint(ctx context.Context, d *Deps, hash chainhash.Hash) (int32, int32, []chainhash.Hash, error) {
	notFound := rpc.NewError(rpc.CodeInvalidAddressOrKey, "Block not found")
	if hash == *d.Net.GenesisHash {
		return 0, 0, nil, nil
	}
	if d.Chain == nil {
		return 0, 0, nil, notFound
	}
	be := d.Chain.Backend()
	if place, err := be.BlockPlace(ctx, hash); err == nil && place.Confirmations >= 0 {
		return place.Height, place.Height, nil, nil
	}
	// Off the best chain (btcd places only best-chain blocks): walk the
	// headers back to the first block of the best chain.
	if _, err := be.Headers(ctx, []chainhash.Hash{hash}); err != nil {
		return 0, 0, nil, notFound
	}
	var stale []chainhash.Hash
	cur := hash
	for len(stale) < maxStaleWalk {
		if p, err := be.BlockPlace(ctx, cur); err == nil && p.Confirmations >= 0 {
			return p.Height, p.Height + int32(len(stale)), stale, nil
		}
		hdrs, err := be.Headers(ctx, []chainhash.Hash{cur})
		if err != nil || len(hdrs) != 1 {
			return 0, 0, nil, rpc.NewError(rpc.CodeInternalError, "Can't read block from disk")
		}
		stale = append(stale, cur)
		cur = hdrs[0].PrevBlock
	}
	return 0, 0, nil, rpc.NewError(rpc.CodeInternalError, "Can't read block from disk")
}

// sinceBlockHook, when set (tests only), runs in listsinceblock between
// the lookup of the block asked for and the read of the transactions.
var sinceBlockHook func()

// maxStaleWalk bounds the walk from a stale block back to the best chain.
const maxStaleWalk = 10000

// lastBlockAt returns the hash of the wallet's best-chain block at height:
// from recent, the wallet's last processed blocks, else the node's.
func lastBlockAt(ctx context.Context, d *Deps, recent []wallet.BlockRef, height int32) (string, error) {
	for _, b := range recent {
		if b.Height == height {
			return chainhash.Hash(b.Hash).String(), nil
		}
	}
	if height <= 0 || d.Chain == nil {
		return d.Net.GenesisHash.String(), nil
	}
	hs, err := d.Chain.Backend().BlockHashes(ctx, []int32{height})
	if err != nil || len(hs) != 1 {
		return "", MapError(err)
	}
	return hs[0].String(), nil
}

// newListSinceBlock returns the listsinceblock method.
func newListSinceBlock(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "listsinceblock",
		Category: walletCategory,
		Description: "Returns the wallet's transactions in blocks after blockhash (every one when it is omitted). " +
			"When blockhash left the best chain, transactions from the fork point on are listed, and with include_removed " +
			"those of the blocks that left it are listed under \"removed\".",
		Params: []rpc.Param{
			{Name: "blockhash", Type: rpc.TypeString, Optional: true, Description: "The block to list transactions since."},
			{Name: "target_confirmations", Type: rpc.TypeNumber, Optional: true, Default: "1", Description: "Which best-chain block lastblock names: 1 is the tip. Not a filter."},
			{Name: "include_watchonly", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "(DEPRECATED) No longer used."},
			{Name: "include_removed", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "List the transactions of blocks a reorg removed in \"removed\"."},
			{Name: "include_change", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Also list change outputs."},
			{Name: "label", Type: rpc.TypeString, Optional: true, Description: "Only incoming transactions paying addresses of this label."},
		},
		Result:   "{ \"transactions\": [ ... ], \"removed\": [ ... ], \"lastblock\": \"hex\" }",
		Examples: []string{"", `"000000000000000bacf66f7497b7dc45ef753ee9a7d38571037cdb1a57f663ad" 6`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			all := true
			var height, altHeight int32
			var stale []chainhash.Hash
			var hash chainhash.Hash
			// from is the block asked for when found among the wallet's
			// last processed blocks.
			var from *chainhash.Hash
			if req.Has(0) {
				s, err := req.String(0)
				if err != nil {
					return nil, err
				}
				if s != "" {
					if hash, err = parseTxID(s, "blockhash"); err != nil {
						return nil, err
					}
					var inWallet bool
					if height, altHeight, stale, inWallet, err = forkPoint(ctx, d, w, hash); err != nil {
						return nil, err
					}
					if inWallet {
						from = &hash
					}
					all = false
				}
			}
			target, err := optIntArg(req, 1, 1)
			if err != nil {
				return nil, err
			}
			if target < 1 {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter")
			}
			includeRemoved, err := optBoolArg(req, 3, true)
			if err != nil {
				return nil, err
			}
			includeChange, err := optBoolArg(req, 4, false)
			if err != nil {
				return nil, err
			}
			var label *string
			if req.Has(5) {
				l, err := labelArg(req, 5)
				if err != nil {
					return nil, err
				}
				label = &l
			}
			if sinceBlockHook != nil {
				sinceBlockHook()
			}
			list, err := w.SinceBlock(ctx, from, height, all, includeChange, label)
			if err == nil && list.Gone {
				// A reorg replaced the block after forkPoint found it
				// among the wallet's: listing from its height would leave
				// out the transactions of the blocks that replaced it.
				if height, altHeight, stale, err = chainForkPoint(ctx, d, hash); err != nil {
					return nil, err
				}
				list, err = w.SinceBlock(ctx, nil, height, false, includeChange, label)
			}
			if err != nil {
				return nil, MapError(err)
			}
			rbf := newRBFCheck(ctx, d)
			res := sinceBlockResult{Transactions: make([]any, len(list.Entries))}
			for i, e := range list.Entries {
				res.Transactions[i] = toTxEntry(e, true, rbf).layout()
			}
			if includeRemoved {
				removed := []any{}
				if altHeight > height && len(stale) > 0 {
					blocks, err := d.Chain.Backend().Blocks(ctx, stale)
					if err != nil {
						return nil, rpc.NewError(rpc.CodeInternalError, "Can't read block from disk")
					}
					for _, b := range blocks {
						var txs []*wire.MsgTx
						txs = append(txs, b.Transactions...)
						entries, err := w.RemovedEntries(ctx, txs, includeChange, label)
						if err != nil {
							return nil, MapError(err)
						}
						for _, e := range entries {
							removed = append(removed, toTxEntry(e, true, rbf).layout())
						}
					}
				}
				res.Removed = &removed
			}
			// lastblock is read from the same view as the entries: a block
			// processed meanwhile would make a client skip its transactions.
			b, ok := list.Last()
			last := lastProcessedAt(d, b, ok)
			target = min(target, last.Height+1)
			if res.LastBlock, err = lastBlockAt(ctx, d, list.Recent, int32(last.Height+1-target)); err != nil {
				return nil, err
			}
			return res, nil
		},
	}
}

// receivedParams are the parameters getreceivedbyaddress and
// getreceivedbylabel share after the first.
var receivedParams = []rpc.Param{
	{Name: "minconf", Type: rpc.TypeNumber, Optional: true, Default: "1", Description: "Only count transactions confirmed at least this many times."},
	{Name: "include_immature_coinbase", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Count immature coinbase outputs."},
}

// received is Core's GetReceived over scripts.
// As Core, an address not of the wallet is reported before the errors of
// minconf and include_immature_coinbase.
func received(ctx context.Context, req *rpc.Request, w *wallet.Wallet, scripts [][]byte) (any, error) {
	minDepth, minErr := optIntArg(req, 1, 1)
	immature, immErr := optBoolArg(req, 2, false)
	amount, found, err := w.Received(ctx, scripts, minDepth, immature)
	return receivedReply(amount, found, err, minErr, immErr)
}

// receivedReply is the reply of getreceivedbyaddress and getreceivedbylabel
// once the wallet answered, with the errors in Core's order: the wallet's,
// no script of the wallet, then those of the optional arguments.
func receivedReply(amount int64, found bool, err, minErr, immErr error) (any, error) {
	switch {
	case err != nil:
		return nil, MapError(err)
	case !found:
		return nil, rpc.NewError(rpc.CodeWalletError, "Address not found in wallet")
	case minErr != nil:
		return nil, minErr
	case immErr != nil:
		return nil, immErr
	}
	return rpc.Amount(amount), nil
}

// newGetReceivedByAddress returns the getreceivedbyaddress method.
func newGetReceivedByAddress(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getreceivedbyaddress",
		Category:    walletCategory,
		Description: "Returns the total amount received by an address of the wallet in transactions with at least minconf confirmations.",
		Params: append([]rpc.Param{
			{Name: "address", Type: rpc.TypeString, Description: "The address."},
		}, receivedParams...),
		Result:   "n    (numeric) The total amount in BTC received at this address",
		Examples: []string{`"bcrt1q..."`, `"bcrt1q..." 6`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, spk, err := walletAndAddress(d, req)
			if err != nil {
				return nil, err
			}
			return received(ctx, req, w, [][]byte{spk})
		},
	}
}

// newGetReceivedByLabel returns the getreceivedbylabel method.
func newGetReceivedByLabel(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getreceivedbylabel",
		Category:    walletCategory,
		Description: "Returns the total amount received by the addresses of a label in transactions with at least minconf confirmations.",
		Params: append([]rpc.Param{
			{Name: "label", Type: rpc.TypeString, Description: "The label; \"\" is the default label."},
		}, receivedParams...),
		Result:   "n    (numeric) The total amount in BTC received for this label",
		Examples: []string{`""`, `"tabby" 6 true`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			label, err := labelArg(req, 0)
			if err != nil {
				return nil, err
			}
			// The label's addresses and what they received come from one
			// view: a block that paid both one of them and an address it
			// gave the label meanwhile is counted whole or not at all.
			// As Core, the argument errors come after "Label not found"
			// and "Address not found".
			minDepth, minErr := optIntArg(req, 1, 1)
			immature, immErr := optBoolArg(req, 2, false)
			amount, labelled, found, err := w.ReceivedByLabelTotal(ctx, label, minDepth, immature)
			if err == nil && !labelled {
				return nil, rpc.NewError(rpc.CodeWalletError, "Label not found in wallet")
			}
			return receivedReply(amount, found, err, minErr, immErr)
		},
	}
}

// receivedByAddressEntry is one listreceivedbyaddress element.
type receivedByAddressEntry struct {
	Address       string     `json:"address"`
	Amount        rpc.Amount `json:"amount"`
	Confirmations int64      `json:"confirmations"`
	Label         string     `json:"label"`
	TxIDs         []string   `json:"txids"`
}

// receivedByLabelEntry is one listreceivedbylabel element.
type receivedByLabelEntry struct {
	Amount        rpc.Amount `json:"amount"`
	Confirmations int64      `json:"confirmations"`
	Label         string     `json:"label"`
}

// listReceivedArgs reads minconf, include_empty and (at immIdx)
// include_immature_coinbase.
func listReceivedArgs(req *rpc.Request, immIdx int) (int64, bool, bool, error) {
	minDepth, err := optIntArg(req, 0, 1)
	if err != nil {
		return 0, false, false, err
	}
	empty, err := optBoolArg(req, 1, false)
	if err != nil {
		return 0, false, false, err
	}
	imm, err := optBoolArg(req, immIdx, false)
	if err != nil {
		return 0, false, false, err
	}
	return minDepth, empty, imm, nil
}

func tallyConf(c int64) int64 {
	if c < 0 {
		return 0
	}
	return c
}

// newListReceivedByAddress returns the listreceivedbyaddress method.
func newListReceivedByAddress(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "listreceivedbyaddress",
		Category:    walletCategory,
		Description: "Lists what each receiving address received.",
		Params: []rpc.Param{
			{Name: "minconf", Type: rpc.TypeNumber, Optional: true, Default: "1", Description: "The minimum number of confirmations before payments are included."},
			{Name: "include_empty", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Also list addresses that received nothing."},
			{Name: "include_watchonly", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "(DEPRECATED) No longer used."},
			{Name: "address_filter", Type: rpc.TypeString, Optional: true, Description: "If present and not empty, only this address."},
			{Name: "include_immature_coinbase", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Include immature coinbase transactions."},
		},
		Result:   "[ { \"address\", \"amount\", \"confirmations\", \"label\", \"txids\": [ ... ] }, ... ]",
		Examples: []string{"", "6 true"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			minDepth, empty, imm, err := listReceivedArgs(req, 4)
			if err != nil {
				return nil, err
			}
			var filter []byte
			if req.Has(3) {
				s, err := req.String(3)
				if err != nil {
					return nil, err
				}
				if s != "" {
					if filter, err = address.Decode(s, d.Net); err != nil {
						return nil, rpc.NewError(rpc.CodeWalletError, "address_filter parameter was invalid")
					}
				}
			}
			list, err := w.ReceivedByAddress(ctx, minDepth, empty, imm, filter)
			if err != nil {
				return nil, MapError(err)
			}
			out := make([]receivedByAddressEntry, len(list))
			for i, t := range list {
				ids := make([]string, len(t.TxIDs))
				for j, id := range t.TxIDs {
					ids[j] = id.String()
				}
				out[i] = receivedByAddressEntry{Address: t.Address, Amount: rpc.Amount(t.Amount),
					Confirmations: tallyConf(t.Conf), Label: t.Label, TxIDs: ids}
			}
			return out, nil
		},
	}
}

// newListReceivedByLabel returns the listreceivedbylabel method.
func newListReceivedByLabel(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "listreceivedbylabel",
		Category:    walletCategory,
		Description: "Lists what the addresses of each label received.",
		Params: []rpc.Param{
			{Name: "minconf", Type: rpc.TypeNumber, Optional: true, Default: "1", Description: "The minimum number of confirmations before payments are included."},
			{Name: "include_empty", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Also list labels that received nothing."},
			{Name: "include_watchonly", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "(DEPRECATED) No longer used."},
			{Name: "include_immature_coinbase", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Include immature coinbase transactions."},
		},
		Result:   "[ { \"amount\", \"confirmations\", \"label\" }, ... ]",
		Examples: []string{"", "6 true"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			minDepth, empty, imm, err := listReceivedArgs(req, 3)
			if err != nil {
				return nil, err
			}
			list, err := w.ReceivedByLabel(ctx, minDepth, empty, imm)
			if err != nil {
				return nil, MapError(err)
			}
			out := make([]receivedByLabelEntry, len(list))
			for i, t := range list {
				out[i] = receivedByLabelEntry{Amount: rpc.Amount(t.Amount), Confirmations: tallyConf(t.Conf), Label: t.Label}
			}
			return out, nil
		},
	}
}

// sendLayout is a send entry as Core writes it: abandoned last.
type sendLayout txEntry

// receiveLayout is a receive (generate, immature, orphan) entry as Core
// writes it: parent_descs always, abandoned right after vout, before the
// transaction fields.
type receiveLayout struct {
	Address     string      `json:"address,omitempty"`
	ParentDescs []string    `json:"parent_descs"`
	Category    string      `json:"category"`
	Amount      rpc.Amount  `json:"amount"`
	Label       *string     `json:"label,omitempty"`
	Vout        uint32      `json:"vout"`
	Fee         *rpc.Amount `json:"fee,omitempty"`
	Abandoned   bool        `json:"abandoned"`
	*txJSON
}

// layout returns the entry in Core's field order for its category (plain
// structs rather than a MarshalJSON method, which encoding/json would
// validate and compact again for every entry).
func (e txEntry) layout() any {
	if e.Category == "send" {
		return sendLayout(e)
	}
	return receiveLayout{e.Address, nonNil(e.ParentDescs), e.Category, e.Amount, e.Label, e.Vout, e.Fee, e.Abandoned, e.txJSON}
}

// newListAddressGroupings returns the listaddressgroupings method.
func newListAddressGroupings(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "listaddressgroupings",
		Category: walletCategory,
		Description: "Lists groups of the wallet's addresses whose common ownership became public by use " +
			"as inputs of one transaction or as its change, with each address's balance and label.",
		Result:   "[ [ [ \"address\", amount, \"label\" ], ... ], ... ]",
		Examples: []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			groups, err := w.AddressGroupings(ctx)
			if err != nil {
				return nil, MapError(err)
			}
			out := make([][][]any, len(groups))
			for i, g := range groups {
				out[i] = make([][]any, len(g))
				for j, a := range g {
					row := []any{a.Address, rpc.Amount(a.Amount)}
					if a.Label != nil {
						row = append(row, *a.Label)
					}
					out[i][j] = row
				}
			}
			return out, nil
		},
	}
}

// newImportPrunedFunds returns the importprunedfunds method.
func newImportPrunedFunds(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "importprunedfunds",
		Category: walletCategory,
		Description: "Adds a transaction paying the wallet, with the proof (gettxoutproof) that a best-chain block holds it, " +
			"without a rescan. Transactions spending its outputs later must be imported too, or found by a rescan.",
		Params: []rpc.Param{
			{Name: "rawtransaction", Type: rpc.TypeHex, Description: "The transaction, hex-encoded."},
			{Name: "txoutproof", Type: rpc.TypeHex, Description: "The hex output of gettxoutproof for the transaction."},
		},
		Result:   "null    (json null)",
		Examples: []string{`"rawtransaction" "txoutproof"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, s, err := walletAndString(d, req)
			if err != nil {
				return nil, err
			}
			tx, ok := decodeTx(s)
			if !ok {
				return nil, rpc.NewError(rpc.CodeDeserialization, "TX decode failed. Make sure the tx has at least one input.")
			}
			ps, err := req.String(1)
			if err != nil {
				return nil, err
			}
			raw, err := parseHex(ps, "proof")
			if err != nil {
				return nil, err
			}
			p, err := chain.DecodeMerkleProof(raw)
			if err != nil {
				return nil, rpc.NewError(rpc.CodeMisc, "DataStream::read(): end of data: iostream error")
			}
			// Core's ExtractMatches answers the zero hash for a tree it
			// cannot read, so such a tree passes under a header whose
			// merkle root is zero and fails on the block lookup.
			root, matches, indexes, err := p.ExtractIndexes()
			if err != nil {
				root = chainhash.Hash{}
			}
			if root != p.Header.MerkleRoot {
				return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Something wrong with merkleblock")
			}
			notInChain := rpc.NewError(rpc.CodeInvalidAddressOrKey, "Block not found in chain")
			if d.Chain == nil {
				return nil, notInChain
			}
			hash := p.Header.BlockHash()
			place, err := d.Chain.Backend().BlockPlace(ctx, hash)
			if err != nil || place.Confirmations < 0 {
				return nil, notInChain
			}
			if last, ok := w.LastProcessedBlock(); !ok || place.Height > last.Height {
				return nil, notInChain
			}
			txid := tx.TxHash()
			for i, m := range matches {
				if m != txid {
					continue
				}
				blk := wallet.BlockInfo{Height: place.Height, Hash: hash, Time: p.Header.Timestamp.Unix()}
				if err := w.ImportPrunedTx(ctx, tx, blk, int(indexes[i])); err != nil {
					return nil, MapError(err)
				}
				return nil, nil
			}
			return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Transaction given doesn't exist in proof")
		},
	}
}

// newRemovePrunedFunds returns the removeprunedfunds method.
func newRemovePrunedFunds(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "removeprunedfunds",
		Category:    walletCategory,
		Description: "Deletes a transaction from the wallet (the counterpart of importprunedfunds); its outputs leave the balance.",
		Params: []rpc.Param{
			{Name: "txid", Type: rpc.TypeHex, Description: "The id of the transaction to delete."},
		},
		Result:   "null    (json null)",
		Examples: []string{`"a8d0c0184dde994a09ec054286f1ce581bebf46446a512166eae7628734ea0a5"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, s, err := walletAndString(d, req)
			if err != nil {
				return nil, err
			}
			txid, err := parseTxID(s, "txid")
			if err != nil {
				return nil, err
			}
			if err := w.RemoveTx(ctx, txid); err != nil {
				return nil, MapError(err)
			}
			return nil, nil
		},
	}
}
