package methods

import (
	"context"
	"encoding/json"

	"github.com/descwallet/descwallet/internal/rpc"
)

type hdKeyDescJSON struct {
	Desc   string `json:"desc"`
	Active bool   `json:"active"`
}

type hdKeyJSON struct {
	Xpub        string          `json:"xpub"`
	HasPrivate  bool            `json:"has_private"`
	Xprv        string          `json:"xprv,omitempty"`
	Descriptors []hdKeyDescJSON `json:"descriptors"`
}

// newGetHDKeys returns the gethdkeys method.
func newGetHDKeys(d *Deps) *rpc.Method {
	fields := []rpc.Param{
		{Name: "active_only", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Only the keys of the active descriptors."},
		{Name: "private", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Add each key's extended private key (the wallet must be unlocked)."},
	}
	return &rpc.Method{
		Name:     "gethdkeys",
		Category: walletCategory,
		Description: "Lists the BIP 32 extended keys the wallet's descriptors are written with, each with the descriptors that use it.\n" +
			"The options may also be given as named arguments.",
		Params: []rpc.Param{
			{Name: "options", Type: rpc.TypeObject, Optional: true, NamedOnly: paramNames(fields), Fields: fields, Description: "What to list"},
		},
		Result: "[\n  {\n    \"xpub\" : \"str\",          (string) The extended public key\n" +
			"    \"has_private\" : true|false, (boolean) Whether the wallet holds its private key\n" +
			"    \"xprv\" : \"str\",          (string, optional) The extended private key, when private is true\n" +
			"    \"descriptors\" : [        (json array) The descriptors using the key\n" +
			"      { \"desc\" : \"str\", \"active\" : true|false }, ...\n    ]\n  }, ...\n]",
		Examples: []string{"", `'{"active_only": true, "private": true}'`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			opts, err := optionMembers(req.Arg(0))
			if err != nil {
				return nil, err
			}
			activeOnly, err := optionBool(opts, "active_only")
			if err != nil {
				return nil, err
			}
			private, err := optionBool(opts, "private")
			if err != nil {
				return nil, err
			}
			keys, err := w.HDKeys(ctx, activeOnly, private)
			if err != nil {
				return nil, MapError(err)
			}
			out := make([]hdKeyJSON, 0, len(keys))
			for _, k := range keys {
				e := hdKeyJSON{Xpub: k.Xpub, HasPrivate: k.HasPrivate, Xprv: k.Xprv, Descriptors: []hdKeyDescJSON{}}
				for _, u := range k.Descriptors {
					e.Descriptors = append(e.Descriptors, hdKeyDescJSON{Desc: u.Desc, Active: u.Active})
				}
				out = append(out, e)
			}
			return out, nil
		},
	}
}

// optionMembers reads an options object argument (Core's
// OBJ_NAMED_PARAMS): null or absent reads as an empty object.
func optionMembers(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if rpc.IsNull(raw) {
		return map[string]json.RawMessage{}, nil
	}
	m, ok := rpc.Members(raw)
	if !ok {
		return nil, rpc.TypeError(rpc.JSONType(raw), "object")
	}
	return m, nil
}

// optionBool reads a bool member of an options object as Core's
// exists(k) ? get_bool() : false does: a member that is present must be a
// bool, null included.
func optionBool(opts map[string]json.RawMessage, k string) (bool, error) {
	v, ok := opts[k]
	if !ok {
		return false, nil
	}
	return rpc.AsBool(v)
}
