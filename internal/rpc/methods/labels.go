package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
)

// newSetLabel returns the setlabel method.
func newSetLabel(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "setlabel",
		Category:    walletCategory,
		Description: "Gives an address a label.",
		Params: []rpc.Param{
			{Name: "address", Type: rpc.TypeString, Description: "The address."},
			{Name: "label", Type: rpc.TypeString, Description: "The label."},
		},
		Result:   "null    (json null)",
		Examples: []string{`"bcrt1q..." "tabby"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, spk, err := walletAndAddress(d, req)
			if err != nil {
				return nil, err
			}
			label, err := req.String(1)
			if err != nil {
				return nil, err
			}
			if err := w.SetLabel(ctx, spk, label); err != nil {
				return nil, MapError(err)
			}
			return nil, nil
		},
	}
}

// newListLabels returns the listlabels method.
func newListLabels(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "listlabels",
		Category:    walletCategory,
		Description: "Lists the labels in use, optionally only those of one purpose.",
		Params: []rpc.Param{
			{Name: "purpose", Type: rpc.TypeString, Optional: true, Description: `"send" or "receive".`},
		},
		Result:   "[ \"str\", ... ]",
		Examples: []string{"", `"receive"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			purpose := ""
			if req.Has(0) {
				if purpose, err = req.String(0); err != nil {
					return nil, err
				}
			}
			switch purpose {
			case "", "receive", "send", "refund":
			default:
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid 'purpose' argument, must be a known purpose string, typically 'send', or 'receive'.")
			}
			return w.Labels(purpose), nil
		},
	}
}

type purposeEntry struct {
	Purpose string `json:"purpose"`
}

// newGetAddressesByLabel returns the getaddressesbylabel method.
func newGetAddressesByLabel(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getaddressesbylabel",
		Category:    walletCategory,
		Description: "Lists the addresses that carry a label, with their purposes.",
		Params: []rpc.Param{
			{Name: "label", Type: rpc.TypeString, Description: "The label."},
		},
		Result:   "{ \"address\" : { \"purpose\" : \"str\" }, ... }",
		Examples: []string{`"tabby"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, label, err := walletAndString(d, req)
			if err != nil {
				return nil, err
			}
			if label == "*" {
				return nil, rpc.NewError(rpc.CodeWalletInvalidLabelName, "Invalid label name")
			}
			byLabel := w.AddressesByLabel(label)
			spks := make([][]byte, 0, len(byLabel))
			for spk := range byLabel {
				spks = append(spks, []byte(spk))
			}
			sortAddressBook(spks)
			// Core's address book is a map ordered by destination: the keys
			// come out in that order.
			out := []byte{'{'}
			for _, spk := range spks {
				a, ok := address.Encode(spk, d.Net)
				if !ok {
					continue
				}
				if len(out) > 1 {
					out = append(out, ',')
				}
				k, _ := json.Marshal(a)
				v, _ := json.Marshal(purposeEntry{Purpose: byLabel[string(spk)]})
				out = append(append(append(out, k...), ':'), v...)
			}
			if len(out) == 1 {
				return nil, rpc.NewError(rpc.CodeWalletInvalidLabelName, "No addresses with label "+label)
			}
			return json.RawMessage(append(out, '}')), nil
		},
	}
}

// newKeypoolRefill returns the keypoolrefill method.
func newKeypoolRefill(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "keypoolrefill",
		Category:    walletCategory,
		Description: "Derives addresses ahead of the next index of every active descriptor.",
		Params: []rpc.Param{
			{Name: "newsize", Type: rpc.TypeNumber, Optional: true, Default: "the -keypool setting", Description: "How many addresses to keep derived ahead."},
		},
		Result:   "null    (json null)",
		Examples: []string{"", "100"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			var size int64
			if req.Has(0) {
				n, err := req.Int(0)
				if err != nil {
					return nil, err
				}
				if n < 0 {
					return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, expected valid size.")
				}
				size = int64(n)
			}
			if err := w.EnsureUnlocked(); err != nil {
				return nil, MapError(err)
			}
			if err := w.KeypoolRefill(ctx, size); err != nil {
				return nil, MapError(err)
			}
			return nil, nil
		},
	}
}

// destinationKey returns where Core's address book (a map keyed by
// CTxDestination, src/addresstype.h) puts an output script: first the
// destination's variant (P2PK, P2PKH, P2SH, P2WSH, P2WPKH, P2TR, P2A,
// other witness versions; anything without one first of all), then the
// destination's own bytes (the hash, key or witness program; version then
// program for unknown witness versions).
func destinationKey(spk []byte) (rank int, version int, data []byte) {
	class, sol := script.Solve(spk)
	switch class {
	case script.PubKey:
		return 1, 0, sol[0]
	case script.PubKeyHash:
		return 2, 0, sol[0]
	case script.ScriptHash:
		return 3, 0, sol[0]
	case script.WitnessV0ScriptHash:
		return 4, 0, sol[0]
	case script.WitnessV0KeyHash:
		return 5, 0, sol[0]
	case script.WitnessV1Taproot:
		return 6, 0, sol[0]
	case script.Anchor:
		return 7, 0, nil
	case script.WitnessUnknown:
		return 8, int(sol[0][0]), sol[1]
	}
	return 0, 0, spk
}

// sortAddressBook sorts output scripts in Core's address book order.
func sortAddressBook(spks [][]byte) {
	sort.Slice(spks, func(i, j int) bool {
		ri, vi, di := destinationKey(spks[i])
		rj, vj, dj := destinationKey(spks[j])
		if ri != rj {
			return ri < rj
		}
		if vi != vj {
			return vi < vj
		}
		return bytes.Compare(di, dj) < 0
	})
}
