package rpc

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// This file is the event stream endpoint, GET /wallet/<name>/events: a
// wallet's event log read from a cursor, as Server-Sent Events or as a long
// poll answered with a JSON array. It runs under the same allow-list,
// credentials and -rpcwhitelist rules as the calls (a user needs
// listwalletevents), but outside the worker pool: a stream may stay open
// for days, so streams have their own bound (MaxStreams) and never hold a
// worker slot. The events come from an EventFeed, which the node backs
// with the wallets' logs; a stream waits on the feed's change channel, so
// the wallet that appends never waits for a reader.

// Defaults of the stream endpoint.
const (
	// DefaultMaxStreams bounds the streams and long polls open at once.
	DefaultMaxStreams = 32
	// DefaultHeartbeat is how often an idle stream sends a comment line,
	// so that proxies keep it open and a dead client is noticed.
	DefaultHeartbeat = 15 * time.Second
	// MaxEventWait is the longest long poll (?wait=), in seconds.
	MaxEventWait = 3600
	// streamBatch is how many events a stream reads from the log at once.
	streamBatch = 500
	// maxEventLimit bounds ?limit= of a long poll, as listwalletevents.
	maxEventLimit = 10000
	// eventsMethod is the method a user must be allowed to call to read a
	// stream (-rpcwhitelist).
	eventsMethod = "listwalletevents"
)

// FeedEvent is one event of a wallet's log as the endpoint sends it.
type FeedEvent struct {
	// Cursor is the event's position in the wallet's log.
	Cursor int64
	// Kind is the event's kind (received, confirmed, ...).
	Kind string
	// JSON is the event object as listwalletevents renders it, on one line.
	JSON []byte
}

// EventFeed reads the wallets' event logs for the endpoint.
type EventFeed interface {
	// Read returns at most limit events of the named wallet whose cursor
	// is above after, in order, and a channel that is closed once the
	// log may have grown after the read began (or the wallet closed).
	// Its errors are *Error values (an unknown wallet is -18).
	Read(ctx context.Context, wallet string, after int64, limit int) ([]FeedEvent, <-chan struct{}, error)
}

// streamSink is the front end's side of a stream: it sends the head of a
// response whose body is written piece by piece until the connection
// closes.
type streamSink interface {
	// startStream writes the status line and headers of a 200 reply with
	// the given content type and no length (the body ends with the
	// connection).
	startStream(ctype string) error
	// writeStream writes and flushes a piece of the body.
	writeStream(p []byte) error
}

// eventsPath reports whether the request target is /wallet/<name>/events
// (with an optional query) and returns the decoded wallet name and the raw
// query.
func eventsPath(uri string) (wallet, query string, ok bool) {
	path, query, _ := strings.Cut(uri, "?")
	rest, ok := strings.CutPrefix(path, "/wallet/")
	if !ok {
		return "", "", false
	}
	name, ok := strings.CutSuffix(rest, "/events")
	if !ok {
		return "", "", false
	}
	return urlDecode(name), query, true
}

// eventQuery is a parsed stream request.
type eventQuery struct {
	after int64
	wait  int // seconds; -1: no long poll, a stream
	limit int
}

// parseEventQuery reads ?after=, ?wait= and ?limit=, and the Last-Event-ID
// header, which wins over ?after= (a reconnecting EventSource sends the
// same URL with the last id it saw).
func parseEventQuery(query, lastID string, hasLastID bool) (eventQuery, *Error) {
	q := eventQuery{wait: -1, limit: 100}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return q, NewError(CodeInvalidParameter, "Invalid query string")
	}
	for k := range vals {
		switch k {
		case "after", "wait", "limit":
			if len(vals[k]) > 1 {
				return q, NewError(CodeInvalidParameter, "Parameter "+k+" given more than once")
			}
		default:
			return q, NewError(CodeInvalidParameter, "Unknown parameter "+k)
		}
	}
	cursor := func(name, v string) (int64, *Error) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, NewError(CodeInvalidParameter, "Invalid "+name+": not an integer")
		}
		if n < 0 {
			return 0, NewError(CodeInvalidParameter, "Negative "+name)
		}
		return n, nil
	}
	if v, ok := vals["after"]; ok {
		n, e := cursor("after", v[0])
		if e != nil {
			return q, e
		}
		q.after = n
	}
	if hasLastID {
		n, e := cursor("Last-Event-ID", strings.TrimSpace(lastID))
		if e != nil {
			return q, e
		}
		q.after = n
	}
	if v, ok := vals["wait"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 0 || n > MaxEventWait {
			return q, NewError(CodeInvalidParameter, "wait must be an integer from 0 to "+strconv.Itoa(MaxEventWait))
		}
		q.wait = n
	}
	if v, ok := vals["limit"]; ok {
		if q.wait < 0 {
			return q, NewError(CodeInvalidParameter, "limit applies to a long poll (wait) only")
		}
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > maxEventLimit {
			return q, NewError(CodeInvalidParameter, "limit must be an integer from 1 to "+strconv.Itoa(maxEventLimit))
		}
		q.limit = n
	}
	return q, nil
}

// eventErrorStatus is the HTTP status of an error reply of the endpoint:
// an unknown wallet is 404, a bad request 400, anything else 500.
func eventErrorStatus(code Code) int {
	switch code {
	case CodeWalletNotFound:
		return http.StatusNotFound
	case CodeInvalidParameter, CodeTypeError:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// eventErrorReply is an error in Core's JSON-RPC reply shape.
func eventErrorReply(out []byte, e *Error) reply {
	out = append(out, `{"result":null,"error":`...)
	out = appendError(out, e)
	out = append(out, ",\"id\":null}\n"...)
	return reply{status: eventErrorStatus(e.Code), ctype: ctypeJSON, length: true, body: out}
}

// feedError turns a feed failure into the *Error the client sees.
func (s *Server) feedError(err error) *Error {
	if e, ok := err.(*Error); ok {
		return e
	}
	if s.mapError != nil {
		if mapped, ok := s.mapError(err).(*Error); ok {
			return mapped
		}
	}
	s.log.Error("event stream read failed", "err", err)
	return &Error{CodeMisc, internalErrorMessage}
}

// handleEvents answers GET /wallet/<name>/events once the peer passed the
// allow-list: credentials, whitelist, query, then the long poll or the
// stream.
func (s *Server) handleEvents(ctx context.Context, r *request, name, query string, out []byte) reply {
	user, rep, ok := s.authenticate(ctx, r)
	if !ok {
		return rep
	}
	if s.wl != nil && !s.wl.Allowed(user, eventsMethod) {
		s.log.Warn("RPC User not allowed to call method", "user", user, "method", eventsMethod)
		return emptyReply(http.StatusForbidden)
	}
	q, e := parseEventQuery(query, r.lastEventID, r.hasLastEventID)
	if e != nil {
		return eventErrorReply(out, e)
	}

	// A stream slot: never a worker slot, which calls need.
	if s.streams.Add(1) > int64(s.maxStreams) {
		s.streams.Add(-1)
		s.log.Warn("event stream refused: too many open", "max", s.maxStreams)
		return reply{status: http.StatusServiceUnavailable, ctype: ctypeHTML, length: true,
			body: append(out, tooManyStreams...)}
	}
	defer s.streams.Add(-1)
	if w, ok := r.body.(peerWatcher); ok {
		ctx = w.watchPeer(ctx)
		defer w.unwatchPeer()
	}

	limit := streamBatch
	if q.wait >= 0 {
		limit = q.limit
	}
	evs, changed, err := s.events.Read(ctx, name, q.after, limit)
	if err != nil {
		return eventErrorReply(out, s.feedError(err))
	}
	if q.wait >= 0 {
		return s.longPoll(ctx, name, q, evs, changed, out)
	}
	if r.stream == nil {
		return eventErrorReply(out, NewError(CodeMisc, "streaming not supported by this transport"))
	}
	s.stream(ctx, r.stream, name, q.after, evs, changed)
	return reply{abort: true}
}

var tooManyStreams = "Too many event streams"

// longPoll answers with the events after the cursor as soon as there are
// any, or with an empty array once the wait is over.
func (s *Server) longPoll(ctx context.Context, name string, q eventQuery, evs []FeedEvent, changed <-chan struct{}, out []byte) reply {
	if len(evs) == 0 && q.wait > 0 {
		timer := time.NewTimer(time.Duration(q.wait) * time.Second)
		defer timer.Stop()
	wait:
		for len(evs) == 0 {
			select {
			case <-changed:
			case <-timer.C:
				break wait
			case <-ctx.Done():
				if s.ctx.Err() != nil {
					break wait // shutting down: answer what there is
				}
				return reply{abort: true} // the client hung up
			}
			var err error
			if evs, changed, err = s.events.Read(ctx, name, q.after, q.limit); err != nil {
				return eventErrorReply(out, s.feedError(err))
			}
		}
	}
	out = append(out, '[')
	for i, e := range evs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e.JSON...)
	}
	out = append(out, "]\n"...)
	return reply{status: http.StatusOK, ctype: ctypeJSON, length: true, body: out}
}

// stream sends the events as Server-Sent Events until the client hangs up,
// a write fails (a reader that stops reading is dropped after the write
// deadline) or the server stops. Each event is "id: <cursor>", "event:
// <kind>", "data: <json>"; an idle stream sends a comment every heartbeat.
func (s *Server) stream(ctx context.Context, sink streamSink, name string, after int64, evs []FeedEvent, changed <-chan struct{}) {
	if sink.startStream(ctypeEventStream) != nil {
		return
	}
	buf := make([]byte, 0, 4096)
	buf = append(buf, "retry: 2000\n\n"...)
	if sink.writeStream(buf) != nil {
		return
	}
	beat := time.NewTicker(s.heartbeat)
	defer beat.Stop()
	for {
		if len(evs) > 0 {
			buf = buf[:0]
			for _, e := range evs {
				buf = appendSSE(buf, e)
				after = e.Cursor
			}
			if sink.writeStream(buf) != nil {
				return
			}
			beat.Reset(s.heartbeat)
			if cap(buf) > 1<<20 {
				buf = make([]byte, 0, 4096)
			}
		}
		if len(evs) < streamBatch {
			// Caught up: wait for the log to grow.
		idle:
			for {
				select {
				case <-changed:
					break idle
				case <-beat.C:
					if sink.writeStream(heartbeatLine) != nil {
						return
					}
				case <-ctx.Done():
					return
				}
			}
		}
		var err error
		evs, changed, err = s.events.Read(ctx, name, after, streamBatch)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			// The wallet was unloaded, say: tell the client and end.
			buf = append(buf[:0], "event: error\ndata: "...)
			buf = appendError(buf, s.feedError(err))
			buf = append(buf, "\n\n"...)
			sink.writeStream(buf)
			return
		}
	}
}

const ctypeEventStream = "text/event-stream"

var heartbeatLine = []byte(":\n\n")

// appendSSE appends one event in the text/event-stream format.
func appendSSE(dst []byte, e FeedEvent) []byte {
	dst = append(dst, "id: "...)
	dst = strconv.AppendInt(dst, e.Cursor, 10)
	dst = append(dst, "\nevent: "...)
	dst = append(dst, e.Kind...)
	dst = append(dst, "\ndata: "...)
	dst = append(dst, e.JSON...)
	return append(dst, "\n\n"...)
}
