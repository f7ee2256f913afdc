package methods

import (
	"encoding/json"
	"testing"
)

// TestCombineRawTransactionErrors checks Core's order of checks: every
// version decodes (the index of the first bad one is named), the list is
// not empty, then each input's previous output must be known (a node
// without a chain backend knows none).
func TestCombineRawTransactionErrors(t *testing.T) {
	s := statelessServer(t)
	const tx = "0200000001a6e90326f369d603e7bea704089ee6414ddf10d2a1efde31bd33e0f89a249aec0000000000fdffffff0180f0fa0200000000160014fe4d9d5a7a5969f9f9caddff6870231ac79213d200000000"
	for _, c := range []struct {
		params string
		code   int
		msg    string
	}{
		{`[[]]`, -22, "Missing transactions"},
		{`[["` + tx + `","zz"]]`, -22, "TX decode failed for tx 1. Make sure the tx has at least one input."},
		{`[["` + tx + `",1]]`, -3, "JSON value of type number is not of expected type string"},
		{`[["` + tx + `","` + tx + `"]]`, -25, "Input not found or already spent"},
	} {
		body := rawCall(t, s, "combinerawtransaction", json.RawMessage(c.params))
		var r struct {
			Error *struct {
				Code    int
				Message string
			}
		}
		_ = json.Unmarshal(body, &r)
		if r.Error == nil || r.Error.Code != c.code || r.Error.Message != c.msg {
			t.Errorf("%s: got %s, want %d %q", c.params, body, c.code, c.msg)
		}
	}
}
