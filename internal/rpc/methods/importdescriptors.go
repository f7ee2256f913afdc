package methods

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletscan"
)

type importError struct {
	Code    rpc.Code `json:"code"`
	Message string   `json:"message"`
}

type importResult struct {
	Success  bool         `json:"success"`
	Error    *importError `json:"error,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
}

// newImportDescriptors returns the importdescriptors method.
func newImportDescriptors(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "importdescriptors",
		Category: walletCategory,
		Description: "Imports descriptors into the wallet. Each element is checked and stored on its own, " +
			"so elements before a failing one stay imported. Timestamps say where a rescan starts; \"now\" " +
			"asks for none.",
		Params: []rpc.Param{
			{Name: "requests", Type: rpc.TypeArray, Description: "The descriptors to import.",
				Fields: []rpc.Param{
					{Name: "desc", Type: rpc.TypeString, Description: "The descriptor, with its checksum."},
					{Name: "active", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Use it for new addresses of its type."},
					{Name: "range", Type: rpc.TypeRange, Optional: true, Description: "End or [begin,end] of a ranged descriptor."},
					{Name: "next_index", Type: rpc.TypeNumber, Optional: true, Description: "The next index to hand out."},
					{Name: "timestamp", Type: rpc.TypeAny, Description: "Creation time in UNIX seconds, or \"now\"."},
					{Name: "internal", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Use it for change."},
					{Name: "label", Type: rpc.TypeString, Optional: true, Default: `""`, Description: "Label of a non-ranged, non-internal descriptor's addresses."},
				}},
		},
		Result:   "[ { \"success\" : true|false, \"warnings\" : [ \"str\" ], \"error\" : { \"code\", \"message\" } }, ... ]",
		Examples: []string{`'[{"desc":"wpkh(...)#...","timestamp":"now"}]'`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			release, err := reserveRescan(d, w, true)
			if err != nil {
				return nil, err
			}
			defer release()
			var raws []json.RawMessage
			if err := json.Unmarshal(req.Arg(0), &raws); err != nil {
				return nil, rpc.TypeError(rpc.JSONType(req.Arg(0)), "array")
			}
			elems := make([]wallet.ImportElement, len(raws))
			tsErrs := make([]error, len(raws))
			times := make([]walletscan.ImportTime, len(raws))
			for i, raw := range raws {
				elems[i], tsErrs[i] = readImportElement(raw, w)
				times[i] = walletscan.ImportTime{Time: elems[i].Timestamp, Now: isNowTimestamp(raw)}
				// The rescan an element asks for is recorded with it,
				// so that a crash before the rescan starts still
				// resumes it.
				if tsErrs[i] == nil && walletscan.RecordsRescan(times[i], d.Chain != nil, w) {
					elems[i].RescanFrom = elems[i].Timestamp
				}
			}
			// The import runs to its end when the client hangs up, as in
			// Core: a client whose timeout passes retries expecting it
			// done. Shutdown still stops it.
			ctx, done := rpc.Unwatched(ctx)
			defer done()
			results, err := w.ImportDescriptors(ctx, elems, func(i int) error { return tsErrs[i] })
			if err != nil {
				return nil, MapError(err)
			}
			if d.Chain != nil {
				for i, r := range results {
					times[i].Imported = r.Success
				}
				if err := d.Chain.ImportRescan(ctx, w, times); err != nil {
					return nil, MapError(err)
				}
			}
			out := make([]importResult, len(results))
			for i, r := range results {
				out[i] = importResult{Success: r.Success, Warnings: r.Warnings}
				if r.Err != nil {
					code, msg := errorCode(r.Err)
					out[i].Error = &importError{Code: code, Message: msg}
				}
			}
			return out, nil
		},
	}
}

// errorCode returns the RPC code and message of an error.
func errorCode(err error) (rpc.Code, string) {
	var re *rpc.Error
	if errors.As(MapError(err), &re) {
		return re.Code, re.Message
	}
	return rpc.CodeMisc, "Internal error"
}

// readImportElement reads one request element. It returns the element and
// the whole-call error of its timestamp, if any.
func readImportElement(raw json.RawMessage, w *wallet.Wallet) (wallet.ImportElement, error) {
	var e wallet.ImportElement
	e.FieldErr = map[string]error{}
	var obj map[string]json.RawMessage
	if rpc.JSONType(raw) != "object" || json.Unmarshal(raw, &obj) != nil {
		return e, rpc.NewError(rpc.CodeTypeError, "Missing required timestamp field for key")
	}
	var tsErr error
	if ts, ok := obj["timestamp"]; !ok {
		tsErr = rpc.NewError(rpc.CodeTypeError, "Missing required timestamp field for key")
	} else {
		switch t := rpc.JSONType(ts); t {
		case "number":
			v, err := rpc.AsInt64(ts)
			if err != nil {
				tsErr = err
			}
			e.Timestamp = v
		case "string":
			s, _ := rpc.AsString(ts)
			if s == "now" {
				e.Timestamp = w.Now()
			} else {
				tsErr = rpc.NewError(rpc.CodeTypeError, `Expected number or "now" timestamp value for key. got type string`)
			}
		default:
			tsErr = rpc.NewError(rpc.CodeTypeError, `Expected number or "now" timestamp value for key. got type `+t)
		}
	}
	if e.Timestamp < 1 {
		e.Timestamp = 1
	}
	if v, ok := obj["desc"]; ok {
		e.HasDesc = true
		s, err := rpc.AsString(v)
		if err != nil {
			e.FieldErr["desc"] = err
		}
		e.Desc = s
	}
	if v, ok := obj["active"]; ok {
		b, err := rpc.AsBool(v)
		if err != nil {
			e.FieldErr["active"] = err
		}
		e.Active = b
	}
	if v, ok := obj["label"]; ok {
		e.HasLabel = true
		if !rpc.IsNull(v) {
			s, err := rpc.AsString(v)
			if err != nil {
				e.FieldErr["label"] = err
			}
			e.Label = &s
		}
	}
	if v, ok := obj["internal"]; ok {
		e.HasInternal = true
		b, err := rpc.AsBool(v)
		if err != nil {
			e.FieldErr["internal"] = err
		}
		e.Internal = b
	}
	if v, ok := obj["range"]; ok {
		e.HasRange = true
		lo, hi, whole, elemErr := parseRange(v)
		if whole != nil {
			e.FieldErr["range"] = whole
		}
		e.RangeErr = elemErr
		e.RangeStart, e.RangeEnd = lo, hi
	}
	if v, ok := obj["next_index"]; ok {
		n, err := rpc.AsInt64(v)
		if err != nil {
			e.FieldErr["next_index"] = err
		}
		e.NextIndex = &n
	}
	return e, tsErr
}

// parseRange reads a range as Core's ParseDescriptorRange: an end, or a
// [begin,end] pair. It returns the range, or a whole-call error (a number
// that is not an integer), or a per-element error.
func parseRange(v json.RawMessage) (lo, hi int64, whole, elem error) {
	bad := wallet.InvalidParameter("Range must be specified as end or as [begin,end]")
	switch rpc.JSONType(v) {
	case "number":
		n, err := rpc.AsInt64(v)
		if err != nil {
			return 0, 0, err, nil
		}
		lo, hi = 0, n
	case "array":
		var pair []json.RawMessage
		if json.Unmarshal(v, &pair) != nil || len(pair) != 2 {
			return 0, 0, nil, bad
		}
		for _, p := range pair {
			if rpc.JSONType(p) != "number" {
				return 0, 0, nil, bad
			}
		}
		a, err := rpc.AsInt64(pair[0])
		if err != nil {
			return 0, 0, err, nil
		}
		b, err := rpc.AsInt64(pair[1])
		if err != nil {
			return 0, 0, err, nil
		}
		if a > b {
			return 0, 0, nil, wallet.InvalidParameter("Range specified as [begin,end] must not have begin after end")
		}
		lo, hi = a, b
	default:
		return 0, 0, nil, bad
	}
	if lo < 0 {
		return 0, 0, nil, wallet.InvalidParameter("Range should be greater or equal than 0")
	}
	if hi>>31 != 0 {
		return 0, 0, nil, wallet.InvalidParameter("End of range is too high")
	}
	if hi >= lo+1000000 {
		return 0, 0, nil, wallet.InvalidParameter("Range is too large")
	}
	return lo, hi, nil, nil
}
