package methods

import (
	"context"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/rpc"
)

// descriptorInfoResult is getdescriptorinfo's reply in Core's field order;
// multipath_expansion appears only for multipath descriptors.
type descriptorInfoResult struct {
	Descriptor         string   `json:"descriptor"`
	MultipathExpansion []string `json:"multipath_expansion,omitempty"`
	Checksum           string   `json:"checksum"`
	IsRange            bool     `json:"isrange"`
	IsSolvable         bool     `json:"issolvable"`
	HasPrivateKeys     bool     `json:"hasprivatekeys"`
}

// newGetDescriptorInfo returns the getdescriptorinfo method.
func newGetDescriptorInfo(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "getdescriptorinfo",
		Category: "util",
		Description: "Analyses a descriptor.\n" +
			"A checksum is optional; when one is given it must be right.",
		Params: []rpc.Param{
			{Name: "descriptor", Type: rpc.TypeString, Description: "The descriptor."},
		},
		Result: "{                                   (json object)\n" +
			"  \"descriptor\" : \"str\",             (string) The descriptor in its public form, with its checksum; the first branch of a multipath descriptor\n" +
			"  \"multipath_expansion\" : [ ... ],    (json array, optional) Every branch of a multipath descriptor, in public form\n" +
			"  \"checksum\" : \"str\",               (string) The checksum of the descriptor as given\n" +
			"  \"isrange\" : true|false,           (boolean) Whether the descriptor has a wildcard\n" +
			"  \"issolvable\" : true|false,        (boolean) Whether its scripts can be solved with its keys\n" +
			"  \"hasprivatekeys\" : true|false     (boolean) Whether it holds at least one private key\n" +
			"}",
		Examples: []string{`"wpkh([d34db33f/84h/0h/0h]0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)"`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			desc, err := descriptor.Parse(s, d.Net)
			if err != nil {
				return nil, MapError(err)
			}
			sum, err := descriptor.Checksum(s)
			if err != nil {
				return nil, MapError(err)
			}
			branches := desc.Multipath()
			res := &descriptorInfoResult{
				Descriptor:     branches[0].String(),
				Checksum:       sum,
				IsRange:        branches[0].IsRange(),
				IsSolvable:     branches[0].IsSolvable(),
				HasPrivateKeys: desc.HasPrivateKeys(),
			}
			if len(branches) > 1 {
				for _, b := range branches {
					res.MultipathExpansion = append(res.MultipathExpansion, b.String())
				}
			}
			return res, nil
		},
	}
}
