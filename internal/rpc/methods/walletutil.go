package methods

import (
	"context"
	"time"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// walletCategory is the help category of the wallet methods.
const walletCategory = "wallet"

// errNoWalletSupport answers the wallet methods of a node that runs without
// a wallet manager, as Core answers them under -disablewallet.
var errNoWalletSupport = rpc.NewError(rpc.CodeMethodNotFound, "Method not found")

// walletLoadResult is the result help of the calls that open a wallet.
const walletLoadResult = "{\n  \"name\" : \"str\",        (string) The wallet's name\n  \"warnings\" : [ \"str\" ]  (json array, optional) Warnings\n}"

// walletAndString returns the request's wallet (requestWallet) and its
// first argument, a string, checked in that order.
func walletAndString(d *Deps, req *rpc.Request) (*wallet.Wallet, string, error) {
	w, err := requestWallet(d, req)
	if err != nil {
		return nil, "", err
	}
	s, err := req.String(0)
	if err != nil {
		return nil, "", err
	}
	return w, s, nil
}

// walletAndAddress is walletAndString for an address argument, which it
// decodes to its script: Core's -5 "Invalid Bitcoin address" when it does
// not decode.
func walletAndAddress(d *Deps, req *rpc.Request) (*wallet.Wallet, []byte, error) {
	w, a, err := walletAndString(d, req)
	if err != nil {
		return nil, nil, err
	}
	spk, err := address.Decode(a, d.Net)
	if err != nil {
		return nil, nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Invalid Bitcoin address")
	}
	return w, spk, nil
}

// requestWallet picks the wallet a wallet method works on: the one named by
// the /wallet/<name> URI, or the only loaded one (Core's -18 and -19
// otherwise). Handlers call it after the top-level argument checks and
// before they look at their arguments, as Core does.
func requestWallet(d *Deps, req *rpc.Request) (*wallet.Wallet, error) {
	if d.Wallets == nil {
		return nil, errNoWalletSupport
	}
	w, err := d.Wallets.Resolve(req.Wallet, req.WalletURI)
	if err != nil {
		return nil, MapError(err)
	}
	// A wallet other nodes serve too is brought up to date first, so that
	// what another node acknowledged is seen here. Handing out an address
	// need not see the others' handouts: the database gives each index
	// once.
	handouts := req.Method != "getnewaddress" && req.Method != "getrawchangeaddress"
	ctx, cancel := context.WithTimeout(context.Background(), syncTimeout)
	defer cancel()
	if err := w.Sync(ctx, handouts); err != nil {
		return nil, MapError(err)
	}
	return w, nil
}

// syncTimeout bounds the reading of a shared wallet's changes at the start
// of a call.
const syncTimeout = time.Minute

// optBool reads an optional bool argument: nil when absent or null.
func optBool(req *rpc.Request, i int) (*bool, error) {
	if !req.Has(i) {
		return nil, nil
	}
	b, err := req.Bool(i)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// optString reads an optional string argument: nil when absent or null.
func optString(req *rpc.Request, i int) (*string, error) {
	if !req.Has(i) {
		return nil, nil
	}
	s, err := req.String(i)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// boolOr reads an optional bool argument with a default.
func boolOr(req *rpc.Request, i int, def bool) (bool, error) {
	if !req.Has(i) {
		return def, nil
	}
	return req.Bool(i)
}

// loadResult is the reply of createwallet, loadwallet and restorewallet.
type loadResult struct {
	Name     string   `json:"name"`
	Warnings []string `json:"warnings,omitempty"`
}

// startupParam is the load_on_startup parameter shared by the wallet
// lifecycle methods.
var startupParam = rpc.Param{Name: "load_on_startup", Type: rpc.TypeBool, Optional: true,
	Description: "Add the wallet to the list loaded at startup (true), remove it (false), or leave the list alone (null)."}
