package methods

import (
	"context"
	"encoding/hex"
	"errors"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
)

// validateAddressResult is validateaddress's reply for a valid address, in
// Core's field order: its normal form, script and DescribeAddress fields.
type validateAddressResult struct {
	IsValid        bool   `json:"isvalid"`
	Address        string `json:"address,omitempty"`
	ScriptPubKey   string `json:"scriptPubKey,omitempty"`
	IsScript       *bool  `json:"isscript,omitempty"`
	IsWitness      *bool  `json:"iswitness,omitempty"`
	WitnessVersion *int   `json:"witness_version,omitempty"`
	WitnessProgram string `json:"witness_program,omitempty"`
}

// newValidateAddress returns the validateaddress method.
func newValidateAddress(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "validateaddress",
		Category:    "util",
		Description: "Tells whether a string is an address of this network and what it pays to.",
		Params: []rpc.Param{
			{Name: "address", Type: rpc.TypeString, Description: "The address to check."},
		},
		Result: "{                               (json object)\n" +
			"  \"isvalid\" : true|false,        (boolean) Whether the address is valid\n" +
			"  \"address\" : \"str\",             (string, optional) The address in its normal form\n" +
			"  \"scriptPubKey\" : \"hex\",        (string, optional) The output script it pays to\n" +
			"  \"isscript\" : true|false,       (boolean, optional) Whether it pays to a script\n" +
			"  \"iswitness\" : true|false,      (boolean, optional) Whether it is a witness address\n" +
			"  \"witness_version\" : n,         (numeric, optional) Its witness version\n" +
			"  \"witness_program\" : \"hex\",     (string, optional) Its witness program\n" +
			"  \"error_locations\" : [ n, ... ], (json array, optional) Positions of likely errors (Bech32), when known\n" +
			"  \"error\" : \"str\"                (string, optional) Why the address is invalid\n" +
			"}",
		Examples: []string{`"bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd"`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			spk, err := address.Decode(s, d.Net)
			if err != nil {
				res := &invalidAddressResult{ErrorLocations: []int{}, Error: "Invalid address"}
				var ae *address.Error
				if errors.As(err, &ae) {
					res.Error = ae.Description
					if len(ae.Locations) > 0 {
						res.ErrorLocations = ae.Locations
					}
				}
				return res, nil
			}
			res := &validateAddressResult{IsValid: true, ScriptPubKey: hex.EncodeToString(spk)}
			res.Address, _ = address.Encode(spk, d.Net)
			desc, _ := address.Describe(spk)
			res.IsScript = desc.IsScript
			res.IsWitness = &desc.IsWitness
			res.WitnessVersion = desc.WitnessVersion
			res.WitnessProgram = desc.WitnessProgram
			return res, nil
		},
	}
}

// invalidAddressResult is validateaddress's reply for an invalid address;
// error_locations is always present, empty when no position is known.
type invalidAddressResult struct {
	IsValid        bool   `json:"isvalid"`
	ErrorLocations []int  `json:"error_locations"`
	Error          string `json:"error"`
}
