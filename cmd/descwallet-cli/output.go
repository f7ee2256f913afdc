package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxDepth bounds the nesting of a reply the client prints.
const maxDepth = 512

// value is a decoded JSON value that keeps what printing needs: object keys
// in their order and numbers as written. It is one of nil, bool, string,
// json.Number, []value or *object.
type value any

// object is a JSON object with its members in order.
type object struct {
	keys []string
	vals []value
}

// get returns the value of the first member called key.
func (o *object) get(key string) (value, bool) {
	for i, k := range o.keys {
		if k == key {
			return o.vals[i], true
		}
	}
	return nil, false
}

// decodeValue parses data as one JSON value.
func decodeValue(data []byte) (value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after JSON value")
	}
	return v, nil
}

// readValue reads one value from the token stream.
func readValue(dec *json.Decoder, depth int) (value, error) {
	if depth > maxDepth {
		return nil, errors.New("JSON nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			arr := []value{}
			for dec.More() {
				v, err := readValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		case '{':
			obj := &object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				v, err := readValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				obj.keys = append(obj.keys, key)
				obj.vals = append(obj.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// writeJSON renders v as JSON. With indent 0 the text is compact; otherwise
// each member and element goes on its own line indented by indent spaces per
// level, with ": " after keys, and an empty array or object still spans two
// lines ("[\n]"), as bitcoin-cli prints results.
func writeJSON(b *strings.Builder, v value, indent, level int) {
	if level == 0 {
		level = 1
	}
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(string(t))
	case string:
		writeString(b, t)
	case []value:
		b.WriteByte('[')
		if indent > 0 {
			b.WriteByte('\n')
		}
		for i, e := range t {
			pad(b, indent, level)
			writeJSON(b, e, indent, level+1)
			if i != len(t)-1 {
				b.WriteByte(',')
			}
			if indent > 0 {
				b.WriteByte('\n')
			}
		}
		pad(b, indent, level-1)
		b.WriteByte(']')
	case *object:
		b.WriteByte('{')
		if indent > 0 {
			b.WriteByte('\n')
		}
		for i, k := range t.keys {
			pad(b, indent, level)
			writeString(b, k)
			b.WriteByte(':')
			if indent > 0 {
				b.WriteByte(' ')
			}
			writeJSON(b, t.vals[i], indent, level+1)
			if i != len(t.keys)-1 {
				b.WriteByte(',')
			}
			if indent > 0 {
				b.WriteByte('\n')
			}
		}
		pad(b, indent, level-1)
		b.WriteByte('}')
	}
}

// pad writes indent*level spaces.
func pad(b *strings.Builder, indent, level int) {
	for i := 0; i < indent*level; i++ {
		b.WriteByte(' ')
	}
}

// writeString writes s as a JSON string the way bitcoin-cli does: quote and
// backslash escaped, control characters as \b \t \n \f \r or \u00xx, DEL as
// \u007f, everything else (including non-ASCII UTF-8 and '/') as is.
func writeString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// formatResult renders a successful result for standard output: nothing for
// null, a string as its bare text, anything else as JSON indented by two.
// The second return is false when nothing is to be printed.
func formatResult(v value) (string, bool) {
	switch t := v.(type) {
	case nil:
		return "", false
	case string:
		return t, true
	}
	var b strings.Builder
	writeJSON(&b, v, 2, 0)
	return b.String(), true
}

// walletNotSpecified is the code of the error a multi-wallet node answers
// when no wallet was chosen.
const walletNotSpecified = -19

// formatError renders a JSON-RPC error object for standard error and
// returns the exit status: the code's absolute value.
func formatError(v value) (string, int) {
	obj, ok := v.(*object)
	if !ok {
		var b strings.Builder
		writeJSON(&b, v, 0, 0)
		return "error: " + b.String(), 1
	}
	var out strings.Builder
	code, hasCode := obj.get("code")
	if hasCode && code != nil {
		out.WriteString("error code: ")
		out.WriteString(valueText(code))
		out.WriteByte('\n')
	}
	if msg, ok := obj.get("message"); ok {
		if s, ok := msg.(string); ok {
			out.WriteString("error message:\n")
			out.WriteString(s)
		}
	}
	status := 1
	if n, ok := code.(json.Number); ok {
		if c, err := n.Int64(); err == nil {
			if c == walletNotSpecified {
				out.WriteString("\nTry adding \"-rpcwallet=<filename>\" " +
					"option to descwallet-cli command line.")
			}
			if c < 0 {
				c = -c
			}
			status = int(c)
		}
	}
	return out.String(), status
}

// valueText is a scalar's text as bitcoin-cli shows it: strings bare,
// numbers as written, anything else as compact JSON.
func valueText(v value) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return string(t)
	}
	var b strings.Builder
	writeJSON(&b, v, 0, 0)
	return b.String()
}
