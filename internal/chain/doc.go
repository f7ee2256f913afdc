// Package chain reaches the full node a wallet follows: the Backend interface
// (tip, block hashes by height, headers, raw blocks, BIP158 basic filters, a
// UTXO lookup and transaction broadcast) and its two JSON-RPC clients, one
// for btcd and one for bitcoind. It also carries the node calls wallet
// clients send to the wallet's endpoint (node.go): Call forwards one as it
// came, and typed calls (block places, chain work, chain tips, filter
// headers, raw transactions, mempool entries, acceptance tests, fee
// estimates) read what btcd knows; and the BIP 37 merkle blocks of
// gettxoutproof and verifytxoutproof (merkleblock.go).
//
// # Model
//
// A Client speaks JSON-RPC 1.0 over plain HTTP POST with Basic
// authentication (a user and password, or the backend's cookie file, read
// again when the backend answers 401). Every request has a timeout; failures
// of the transport (refused connection, reset, timeout, an HTTP error without
// a JSON body) are retried a bounded number of times with a growing pause, and
// then reported as ErrUnreachable naming the backend and its address.
//
// The calls a rescan makes by the thousand (block hashes, headers, filters,
// blocks) take slices and are sent as JSON-RPC batches, several batches in
// flight at once over kept-alive connections; both btcd and bitcoind answer
// batches. Replies are bounded in size and validated: a raw block must decode
// completely, stay within the consensus size limit, hash to the requested
// hash and carry the merkle root of its transactions; a header must hash to
// the requested hash; a filter must decode completely (its Golomb-coded set is expanded
// once, when it arrives) and cannot claim more elements than its bytes can
// hold.
//
// Filter matching is the scan's hot loop: every filter is tested against
// every watched script, whose BIP158 value depends on the block. NewWatch
// prepares a watch list once (scripts grouped by length, their SipHash
// message words laid out for several lanes); Filter.MatchWatch then hashes
// fifteen scripts at a time on amd64 with AVX2 (twelve vector lanes and
// three general-register lanes), one at a time elsewhere, maps each hash
// onto the filter's range with the high half of a 128-bit product and looks
// it up in the decoded set, stopping at the first hit. Match and MatchAny
// answer exactly as btcutil's gcs package does.
//
// The two dialects differ only where the nodes differ: btcd answers
// getbestblock and getcfilter <hash> 0 (raw hex), bitcoind answers
// getblockchaininfo and getblockfilter <hash> basic (which needs
// -blockfilterindex=1; without it the client reports ErrNoFilters and a
// rescan falls back to full blocks).
//
// # Errors
//
// Every error is an *Error carrying an ErrorKind, matched with errors.Is:
// ErrUnreachable (transport failure after the retries), ErrAuth (HTTP 401),
// ErrNotFound (unknown block, height above the tip, filter not yet indexed),
// ErrNoFilters (the backend keeps no basic filter index), ErrWrongNetwork
// (the backend's genesis block is not the configured network's),
// ErrBadReply (a reply that does not decode, is too large or does not match
// the request) and ErrRPC (any other JSON-RPC error; the *RPCError with the
// backend's code and message is wrapped).
package chain
