package methods

import (
	"context"
	"encoding/json"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
)

// maxDescriptorRange is Core's limit on the number of indexes in a range.
const maxDescriptorRange = 1000000

// parseDescriptorRange reads a range argument as Core's
// ParseDescriptorRange: a number n is [0, n], a pair [a, b] is itself.
func parseDescriptorRange(raw []byte) (int64, int64, error) {
	var lo, hi int64
	switch rpc.JSONType(raw) {
	case "number":
		n, err := rpc.AsInt64(raw)
		if err != nil {
			return 0, 0, err
		}
		hi = n
	case "array":
		var pair []json.RawMessage
		if err := rpc.Decode(raw, &pair); err != nil || len(pair) != 2 ||
			rpc.JSONType(pair[0]) != "number" || rpc.JSONType(pair[1]) != "number" {
			return 0, 0, rpc.NewError(rpc.CodeInvalidParameter, "Range must be specified as end or as [begin,end]")
		}
		var err error
		if lo, err = rpc.AsInt64(pair[0]); err != nil {
			return 0, 0, err
		}
		if hi, err = rpc.AsInt64(pair[1]); err != nil {
			return 0, 0, err
		}
		if lo > hi {
			return 0, 0, rpc.NewError(rpc.CodeInvalidParameter, "Range specified as [begin,end] must not have begin after end")
		}
	default:
		return 0, 0, rpc.NewError(rpc.CodeInvalidParameter, "Range must be specified as end or as [begin,end]")
	}
	if lo < 0 {
		return 0, 0, rpc.NewError(rpc.CodeInvalidParameter, "Range should be greater or equal than 0")
	}
	if hi>>31 != 0 {
		return 0, 0, rpc.NewError(rpc.CodeInvalidParameter, "End of range is too high")
	}
	if hi >= lo+maxDescriptorRange {
		return 0, 0, rpc.NewError(rpc.CodeInvalidParameter, "Range is too large")
	}
	return lo, hi, nil
}

// deriveChunk is how many indexes are expanded at once, with a cache of
// their own: memory stays bounded by the chunk (plus the addresses), and
// the call notices between chunks that its client went away.
const deriveChunk = 1024

// newDeriveAddresses returns the deriveaddresses method.
func newDeriveAddresses(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "deriveaddresses",
		Category: "util",
		Description: "Derives one or more addresses corresponding to an output descriptor.\n" +
			"The descriptor must carry its checksum (see getdescriptorinfo).\n" +
			"A multipath descriptor gives one list of addresses per branch.",
		Params: []rpc.Param{
			{Name: "descriptor", Type: rpc.TypeString, Description: "The descriptor."},
			{Name: "range", Type: rpc.TypeRange, Optional: true,
				Description: "For a ranged descriptor, the end or the [begin,end] of the range to derive (inclusive)."},
		},
		Result: "[                (json array)\n" +
			"  \"str\",          (string) the derived addresses\n" +
			"  ...\n" +
			"]",
		Examples: []string{`"wpkh([d34db33f/84h/0h/0h]xpub6DJ2dNUysrn5Vt36jH2KLBT2i1auw1tTSSomg8PhqNiUtx8QX2SvC9nrHu81fT41fvDUnhMjEzQgXnQjKEu3oaqMSzhSrHMxyyoEAmUHQbY/0/*)#cjjspncu" "[0,2]"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			var lo, hi int64
			if req.Has(1) {
				if lo, hi, err = parseDescriptorRange(req.Arg(1)); err != nil {
					return nil, err
				}
			}
			desc, err := descriptor.Parse(s, d.Net, descriptor.RequireChecksum())
			if err != nil {
				return nil, MapError(err)
			}
			branches := desc.Multipath()
			given := len(req.Params)
			if !branches[0].IsRange() && given > 1 {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Range should not be specified for an un-ranged descriptor")
			}
			if branches[0].IsRange() && given == 1 {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Range must be specified for a ranged descriptor")
			}
			all := make([][]string, 0, len(branches))
			for _, b := range branches {
				addrs, err := deriveBranch(ctx, b, uint32(lo), uint32(hi), d)
				if err != nil {
					return nil, err
				}
				all = append(all, addrs)
			}
			if len(all) == 1 {
				return all[0], nil
			}
			return all, nil
		},
	}
}

// deriveBranch returns the addresses of one descriptor over [lo, hi]. It
// stops with ctx's error when ctx ends.
func deriveBranch(ctx context.Context, b *descriptor.Descriptor, lo, hi uint32, d *Deps) ([]string, error) {
	// Grown as addresses come: a call given up early holds little.
	addrs := make([]string, 0, min(int(hi-lo)+1, deriveChunk))
	for start := uint64(lo); start <= uint64(hi); start += deriveChunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// A cache per chunk: one for the whole range keeps every
		// derived child key of every index.
		cache := descriptor.NewCache()
		end := start + deriveChunk - 1
		if end > uint64(hi) {
			end = uint64(hi)
		}
		outs, err := b.ExpandRangeContext(ctx, uint32(start), uint32(end), cache)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Cannot derive script without private keys")
		}
		for _, idx := range outs {
			for _, o := range idx {
				a, ok := address.Encode(o.ScriptPubKey, d.Net)
				if !ok {
					// combo() also yields P2PK, which has no address.
					if class, _ := script.Solve(o.ScriptPubKey); len(idx) > 1 && class == script.PubKey {
						continue
					}
					return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Descriptor does not have a corresponding address")
				}
				addrs = append(addrs, a)
			}
		}
	}
	return addrs, nil
}
