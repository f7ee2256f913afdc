package rpc

import "encoding/json"

// Elements returns the elements of the JSON array raw as spans of raw (no
// copies), as decoding raw into a []json.RawMessage would give them, and
// false when raw, leading and trailing spaces aside, is not one array that
// the envelope's reader accepts (then the caller decodes it the slow way,
// which reports Core's error). It reads with the envelope's bounded reader
// (nesting up to maxDepth), without reflection.
func Elements(raw []byte) ([]json.RawMessage, bool) {
	v := trimSpace(raw)
	if len(v) == 0 || v[0] != '[' {
		return nil, false
	}
	if end, ok := scanValue(v, 0, 0); !ok || end != len(v) {
		return nil, false
	}
	var out []json.RawMessage
	it := newElements(v)
	for {
		e, ok := it.next()
		if !ok {
			return out, true
		}
		out = append(out, e)
	}
}

// Members returns the members of the JSON object raw by key, each value a
// span of raw, the first occurrence of a key winning (as Core's find_value
// reads an object), and false when raw, spaces aside, is not one object
// that the envelope's reader accepts (see Elements).
func Members(raw []byte) (map[string]json.RawMessage, bool) {
	v := trimSpace(raw)
	if len(v) == 0 || v[0] != '{' {
		return nil, false
	}
	if end, ok := scanValue(v, 0, 0); !ok || end != len(v) {
		return nil, false
	}
	out := make(map[string]json.RawMessage)
	it := newMembers(v)
	for {
		k, val, ok := it.next()
		if !ok {
			return out, true
		}
		key, ok := unquote(k)
		if !ok {
			return nil, false
		}
		if _, dup := out[key]; !dup {
			out[key] = val
		}
	}
}
