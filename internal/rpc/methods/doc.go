// Package methods holds descwallet's RPC methods, one file per method (or
// per small group): its parameter table, its help text and a handler that
// only translates JSON to domain calls and domain results and errors back.
//
// All returns the table the server serves; Deps carries what the methods
// need from the node. Domain errors become RPC errors in one place,
// errmap.go (MapError), so handlers may return domain errors as they are.
package methods
