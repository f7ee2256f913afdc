package methods

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/psbt"
)

// This file holds what the PSBT methods share: decoding a PSBT argument
// with Core's error, and JSON helpers for decodepsbt's keyed objects.

// decodePSBTArg decodes a base64 PSBT as Core's DecodeBase64PSBT, failing
// with Core's -22 "TX decode failed ...".
func decodePSBTArg(s string) (*psbt.Packet, error) {
	p, err := psbt.DecodeBase64(s)
	if err != nil {
		return nil, rpc.NewError(rpc.CodeDeserialization, "TX decode failed "+err.Error())
	}
	return p, nil
}

// psbtStrings reads an array parameter of base64 PSBT strings.
func psbtStrings(req *rpc.Request, i int) ([]string, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(req.Arg(i), &raws); err != nil {
		return nil, rpc.TypeError(rpc.JSONType(req.Arg(i)), "array")
	}
	out := make([]string, len(raws))
	for j, r := range raws {
		s, err := rpc.AsString(r)
		if err != nil {
			return nil, err
		}
		out[j] = s
	}
	return out, nil
}

// jsonObject is a JSON object whose members keep their order.
type jsonObject []objMember

type objMember struct {
	Key   string
	Value any
}

// MarshalJSON writes the members in order; an empty object is {}.
func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// sortedBy returns the keys of m in the order cmp gives.
func sortedBy[K comparable, V any](m map[K]V, cmp func(a, b K) int) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp)
	return keys
}

func cmpBytes20(a, b [20]byte) int { return bytes.Compare(a[:], b[:]) }
func cmpBytes32(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) }
func cmpBytes33(a, b [33]byte) int { return bytes.Compare(a[:], b[:]) }
func cmpStrings(a, b string) int   { return strings.Compare(a, b) }

// hexObject renders a map from fixed-size hashes to bytes as Core's
// {hash hex: value hex} object, in hash order.
func hexObject20(m map[[20]byte][]byte) jsonObject {
	var o jsonObject
	for _, k := range sortedBy(m, cmpBytes20) {
		o = append(o, objMember{hex.EncodeToString(k[:]), hex.EncodeToString(m[k])})
	}
	return o
}

func hexObject32(m map[[32]byte][]byte) jsonObject {
	var o jsonObject
	for _, k := range sortedBy(m, cmpBytes32) {
		o = append(o, objMember{hex.EncodeToString(k[:]), hex.EncodeToString(m[k])})
	}
	return o
}

// rawObject renders unknown fields: {key hex: value hex} in key order.
func rawObject(m map[string][]byte) jsonObject {
	o := jsonObject{}
	for _, k := range sortedBy(m, cmpStrings) {
		o = append(o, objMember{hex.EncodeToString([]byte(k)), hex.EncodeToString(m[k])})
	}
	return o
}

// proprietaryJSON is one proprietary field as decodepsbt shows it.
type proprietaryJSON struct {
	Identifier string `json:"identifier"`
	Subtype    uint64 `json:"subtype"`
	Key        string `json:"key"`
	Value      string `json:"value"`
}

func proprietaryList(m map[string][]byte) []proprietaryJSON {
	out := []proprietaryJSON{}
	for _, k := range sortedBy(m, cmpStrings) {
		id, sub, _, _ := psbt.ProprietaryKey([]byte(k))
		out = append(out, proprietaryJSON{
			Identifier: hex.EncodeToString(id),
			Subtype:    sub,
			Key:        hex.EncodeToString([]byte(k)),
			Value:      hex.EncodeToString(m[k]),
		})
	}
	return out
}

// hdPath is Core's WriteHDKeypath with h for hardened steps.
func hdPath(path []uint32) string {
	var b strings.Builder
	b.WriteString("m")
	for _, x := range path {
		fmt.Fprintf(&b, "/%d", x&0x7fffffff)
		if x>>31 != 0 {
			b.WriteByte('h')
		}
	}
	return b.String()
}

// fingerprintHex is Core's %08x of the big-endian fingerprint.
func fingerprintHex(fp [4]byte) string { return hex.EncodeToString(fp[:]) }

// sighashNames is Core's mapSigHashTypes.
var sighashNames = map[byte]string{
	0x01: "ALL", 0x81: "ALL|ANYONECANPAY",
	0x02: "NONE", 0x82: "NONE|ANYONECANPAY",
	0x03: "SINGLE", 0x83: "SINGLE|ANYONECANPAY",
}
