package rpc

import (
	"context"
	"testing"
)

// TestParamAliases checks Core's "name|alias" parameters (getblock's and
// getrawtransaction's verbosity|verbose): a named call may use either
// name, the first present wins and the other is unknown, and the messages
// that name the parameter give both names as Core's m_names.
func TestParamAliases(t *testing.T) {
	t.Parallel()
	methods := []*Method{{Name: "verb", Category: "test", Description: "Aliases.",
		Params: []Param{
			{Name: "h", Type: TypeString},
			{Name: "verbosity", Aliases: []string{"verbose"}, Type: TypeNumber, Optional: true},
		},
		Handler: func(_ context.Context, r *Request) (any, error) {
			out := make([]RawJSON, len(r.Params))
			for i, p := range r.Params {
				out[i] = RawJSON(p)
			}
			return out, nil
		}}}
	s, _ := newTestServer(t, Config{Methods: methods})
	for _, c := range []struct{ body, want string }{
		{`{"method":"verb","params":{"h":"x","verbose":2},"id":1}`,
			`{"result":["x",2],"error":null,"id":1}`},
		{`{"method":"verb","params":{"verbosity":0,"h":"x"},"id":1}`,
			`{"result":["x",0],"error":null,"id":1}`},
		{`{"method":"verb","params":{"h":"x","verbose":1,"verbosity":2},"id":1}`,
			`{"result":null,"error":{"code":-8,"message":"Unknown named parameter verbose"},"id":1}`},
		{`{"method":"verb","params":{"h":"x","verbose":true},"id":1}`,
			`{"result":null,"error":{"code":-3,"message":"Wrong type passed:\n{\n    \"Position 2 (verbosity|verbose)\": \"JSON value of type bool is not of expected type number\"\n}"},"id":1}`},
		{`{"method":"verb","params":{"args":["x",1],"verbose":1},"id":1}`,
			`{"result":null,"error":{"code":-8,"message":"Parameter verbosity|verbose specified twice both as positional and named argument"},"id":1}`},
		{`{"method":"verb","params":{"args":["x"],"verbose":1},"id":1}`,
			`{"result":["x",1],"error":null,"id":1}`},
	} {
		w := do(s, "POST", "/", goodAuth, c.body)
		if got := w.Body.String(); got != c.want+"\n" {
			t.Errorf("%s:\n got %s\nwant %s", c.body, got, c.want)
		}
	}
}
