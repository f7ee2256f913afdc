package rpc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
)

// encBufPool recycles the buffers of the encoding/json fallback.
var encBufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// CanonicalJSON is a JSON value already in Core's canonical form (as
// RawJSON.MarshalJSON returns it): it is written as it is, unchecked. It
// lets a handler that keeps replies canonicalize them once.
type CanonicalJSON []byte

// appendResult appends a handler's result in Core's output form. Common
// result types are written directly; anything else goes through
// encoding/json (without HTML escaping) and is then rewritten in Core's
// form, so that strings carry Core's escapes.
func (s *Server) appendResult(dst []byte, res any) ([]byte, error) {
	switch v := res.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendString(dst, v), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	case uint32:
		return strconv.AppendUint(dst, uint64(v), 10), nil
	case Amount:
		return v.AppendJSON(dst), nil
	case RawJSON:
		return appendRaw(dst, v)
	case CanonicalJSON:
		return append(dst, v...), nil
	case json.RawMessage:
		return appendRaw(dst, v)
	case []RawJSON:
		dst = append(dst, '[')
		for i, r := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendRaw(dst, r); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case []string:
		dst = append(dst, '[')
		for i, r := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, r)
		}
		return append(dst, ']'), nil
	}
	buf := encBufPool.Get().(*bytes.Buffer)
	defer encBufPool.Put(buf)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return dst, err
	}
	return appendRaw(dst, buf.Bytes())
}

// appendRaw appends a raw JSON value in Core's form.
func appendRaw(dst []byte, raw []byte) ([]byte, error) {
	if len(raw) == 0 {
		return append(dst, "null"...), nil
	}
	out, ok := appendCanonical(dst, raw)
	if !ok {
		return dst, &Error{CodeInternalError, "invalid JSON in result"}
	}
	return out, nil
}
