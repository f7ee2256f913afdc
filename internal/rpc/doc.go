// Package rpc is descwallet's JSON-RPC server: HTTP transport, Basic
// authentication, the JSON-RPC envelope (legacy 1.x and 2.0, batches,
// notifications), the method table with parameter checking and generated
// help, and the one error type clients see. It answers every request the
// way Bitcoin Core's server does: same codes, messages, HTTP statuses and
// reply shapes.
//
// # Writing a method
//
// A method is a *Method value: name, category, help prose, a parameter
// table ([]Param) and a Handler. Each lives in its own file under
// internal/rpc/methods and is listed once in methods.All. Before the handler
// runs, the server has already:
//
//   - mapped named parameters to positions (Core's rules, including the
//     catch-all "args" and the -8 errors for unknown or repeated names);
//   - checked the argument count against the table (-1 with the method's
//     generated help as the message);
//   - checked the top-level JSON type of each argument against its Param.Type
//     (-3 "Wrong type passed:" in Core's layout). TypeAmount, TypeRange,
//     TypeAny and SkipTypeCheck parameters are not checked.
//
// A Passthrough method skips all three: its handler gets the params value as
// sent in Request.Raw (the node calls forwarded to a bitcoind backend, which
// checks them itself).
//
// The handler reads arguments from Request.Params (raw JSON, positional)
// with the helpers Request.String, Bool, Int, Int64, Amount and Decode, or
// the free functions AsString, AsInt64, AsAmount, JSONType ... for nested
// values. They fail with Core's inner errors: -3 "JSON value of type X is
// not of expected type Y" for a wrong JSON type, -1 "JSON integer out of
// range" for a number that is not an integer of the right size, and Core's
// amount errors.
//
// The handler returns a result for encoding/json (structs fix Core's field
// order; Amount prints exactly eight decimals; RawJSON and json.Number echo
// request values with their original text) or an error. Request.Wallet and
// Request.WalletURI carry the /wallet/<name> part of the URI.
//
// # Errors
//
// Error{Code, Message} is the only error a client sees; Code mirrors
// Core's src/rpc/protocol.h. A handler returns *Error directly, or a domain
// error that the server's error mapper (methods.MapError, one table)
// translates. Any other error, and any panic, becomes -1 with a generic
// message; the details go to the log at error level, never to the client.
//
// # Transport
//
// Server.Serve answers a listener with a small, strict HTTP/1.1 front end
// (http1.go): one goroutine per connection, requests parsed by hand,
// keep-alive and pipelining, chunked bodies, Expect: 100-continue, and
// libevent's limits (8192 bytes of headers, 32 MiB bodies,
// -rpcservertimeout as the read and idle deadline and as the deadline to
// write a reply; a call itself has none). Each reply goes out in one
// write. Server also implements http.Handler for net/http and httptest;
// both paths share Server.handle, the one place where the allow-list,
// routing, method, authentication, body, work-queue and envelope rules
// live. A call's context ends when its client hangs up (a background read
// watches the connection of a call running longer than 20 ms) or when
// Shutdown begins; Shutdown then stops accepting, closes idle connections
// and waits for running calls to end and their replies to be written.
// Work that must outlive its client (Core runs every call to its end; the
// wallet-changing calls clients time out on rely on it) runs under
// Unwatched, which only Shutdown ends.
//
// A request is bounded in what it can make the server allocate: params
// hold at most MaxParamValues JSON values, a batch at most MaxBatch
// requests, and past 4096 of either each needs a few bytes of body
// (-32600 beyond, found by one scan of the body).
//
// A Whitelist (-rpcwhitelist, -rpcwhitelistdefault) limits the methods each
// authenticated user may call. It is checked after the body parses as
// JSON: a refused single call, or a batch with any refused element (all
// elements are checked before one runs), gets an empty HTTP 403 and a
// warning in the log naming the user and the method.
//
// # Event stream
//
// GET /wallet/<name>/events (events.go) serves a wallet's event log from a
// cursor as Server-Sent Events, or as a long poll (?wait=) answered with a
// JSON array, through an EventFeed the node provides. It shares the
// allow-list, credentials and whitelist (listwalletevents) of the calls but
// not their worker pool: streams have their own bound (Config.MaxStreams),
// a heartbeat, and end when the client hangs up, a write stalls past the
// timeout, or Shutdown begins.
//
// # Concurrency
//
// The server runs handlers on a bounded pool of workers (-rpcthreads) with a
// bounded queue (-rpcworkqueue); when the queue is full the request gets
// HTTP 503 "Work queue depth exceeded". Handlers may run concurrently with
// each other and must be safe for that. A Server owns its method table and
// logger; many servers can run in one process.
package rpc
