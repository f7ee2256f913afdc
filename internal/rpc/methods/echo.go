package methods

import (
	"context"
	"strconv"

	"github.com/descwallet/descwallet/internal/rpc"
)

// echoParams are the ten optional, unchecked parameters arg0 .. arg9.
func echoParams() []rpc.Param {
	ps := make([]rpc.Param, 10)
	for i := range ps {
		ps[i] = rpc.Param{Name: "arg" + strconv.Itoa(i), Type: rpc.TypeString,
			Optional: true, SkipTypeCheck: true,
			Description: "Any JSON value; returned unchanged."}
	}
	return ps
}

// echoHandler returns the arguments as given: the same JSON values, numbers
// with their original text.
func echoHandler(_ context.Context, req *rpc.Request) (any, error) {
	out := make([]rpc.RawJSON, len(req.Params))
	for i, p := range req.Params {
		out[i] = rpc.RawJSON(p)
	}
	return out, nil
}

// newEcho returns the echo method, a testing aid.
func newEcho(*Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "echo",
		Category: rpc.HiddenCategory,
		Description: "Returns its arguments as a JSON array, unchanged. Meant " +
			"for testing clients and measuring the server.\nThe command-line " +
			"client passes the arguments of echo as strings and those of " +
			"echojson as JSON; the server treats both alike.",
		Params:   echoParams(),
		Result:   "[...]    (json array) The arguments",
		Examples: []string{`"hello" 1`},
		Handler:  echoHandler,
	}
}

// newEchoJSON returns the echojson method, echo whose command-line
// arguments are JSON.
func newEchoJSON(*Deps) *rpc.Method {
	m := newEcho(nil)
	m.Name = "echojson"
	m.Examples = []string{`'{"a":1}' '[1,2]'`}
	return m
}
