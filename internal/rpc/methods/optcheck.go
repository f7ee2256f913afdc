package methods

import (
	"sort"

	"github.com/descwallet/descwallet/internal/rpc"
)

// typeCheckObj is Core's RPCTypeCheckObj(o, types, /*fAllowNull=*/true,
// strict): the members named in types are checked in Core's std::map order
// (sorted keys), each against its JSON type ("" accepts any, null passes),
// the first member of a repeated key counting; then, when strict, a key
// types does not name is refused. Both errors are -3.
func typeCheckObj(members []jsonMember, types map[string]string, strict bool) error {
	keys := make([]string, 0, len(types))
	for k := range types {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want := types[k]
		v := firstValue(members, k)
		if want == "" || rpc.IsNull(v) {
			continue
		}
		if got := rpc.JSONType(v); got != want {
			return fieldTypeError(got, k, want)
		}
	}
	if strict {
		for _, m := range members {
			if _, ok := types[m.Key]; !ok {
				return rpc.Errorf(rpc.CodeTypeError, "Unexpected key %s", m.Key)
			}
		}
	}
	return nil
}

// unspentQueryTypes is Core's type table of listunspent's query_options.
var unspentQueryTypes = map[string]string{
	"minimumAmount": "", "maximumAmount": "", "minimumSumAmount": "",
	"maximumCount": "number", "include_immature_coinbase": "bool",
}
