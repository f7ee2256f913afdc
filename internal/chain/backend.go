package chain

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// Kind names a backend dialect.
type Kind string

const (
	// KindBitcoind is Bitcoin Core's bitcoind.
	KindBitcoind Kind = "bitcoind"

	// KindBtcd is btcd.
	KindBtcd Kind = "btcd"
)

// BlockID names a block of the best chain: its height and hash.
type BlockID struct {
	Height int32
	Hash   chainhash.Hash
}

// Block is a raw block as the backend sent it, decoded and checked against
// the hash it was asked for, with the ids of its transactions (computed once
// for the merkle check and reused by whoever scans it).
type Block struct {
	*wire.MsgBlock

	// Hash is the block's hash.
	Hash chainhash.Hash

	// TxIDs holds the id of each transaction, in block order.
	TxIDs []chainhash.Hash
}

// TxOut is an unspent transaction output as the backend's gettxout reports
// it.
type TxOut struct {
	// BestBlock is the backend's tip when it answered.
	BestBlock chainhash.Hash

	// Confirmations is 0 for an output of a mempool transaction.
	Confirmations int64

	// Value is the amount in satoshis.
	Value int64

	// PkScript is the output's scriptPubKey.
	PkScript []byte

	// Coinbase tells whether the output belongs to a coinbase transaction.
	Coinbase bool
}

// Backend is what a wallet needs of a full node. Implementations are safe
// for concurrent use. Slices in and out correspond index by index.
type Backend interface {
	// Kind tells which node the backend is.
	Kind() Kind

	// Tip returns the best chain's height and tip hash, read atomically.
	Tip(ctx context.Context) (BlockID, error)

	// BlockHashes returns the best chain's block hashes at the given
	// heights; a height above the tip is ErrNotFound.
	BlockHashes(ctx context.Context, heights []int32) ([]chainhash.Hash, error)

	// Headers returns the headers of the given blocks.
	Headers(ctx context.Context, hashes []chainhash.Hash) ([]wire.BlockHeader, error)

	// Blocks returns the given blocks, decoded and validated.
	Blocks(ctx context.Context, hashes []chainhash.Hash) ([]*Block, error)

	// Filters returns the BIP158 basic filters of the given blocks, or
	// ErrNoFilters when the backend keeps none.
	Filters(ctx context.Context, hashes []chainhash.Hash) ([]*Filter, error)

	// TxOut returns the unspent output op, looking into the mempool when
	// mempool is true; nil and no error when the output is unknown or
	// spent.
	TxOut(ctx context.Context, op wire.OutPoint, mempool bool) (*TxOut, error)

	// SendRawTransaction submits a transaction and returns its id.
	SendRawTransaction(ctx context.Context, tx *wire.MsgTx) (chainhash.Hash, error)

	// MempoolTxIDs returns the ids of the transactions in the backend's
	// mempool, at most MaxMempoolIDs of them.
	MempoolTxIDs(ctx context.Context) ([]chainhash.Hash, error)

	// MempoolTxs returns the given mempool transactions; an entry is nil
	// when the backend no longer knows the transaction (mined or evicted
	// since its id was listed).
	MempoolTxs(ctx context.Context, ids []chainhash.Hash) ([]*wire.MsgTx, error)

	// The calls below answer the node calls of wallet clients (see
	// node.go).

	// Call forwards one call as the client wrote it and returns the
	// backend's result as it wrote it.
	Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)

	// BlockPlace returns a block's height, confirmations and successor.
	BlockPlace(ctx context.Context, hash chainhash.Hash) (BlockPlace, error)

	// ChainWork returns the total work of the chain ending at a block.
	ChainWork(ctx context.Context, hash chainhash.Hash, height int32) (*big.Int, error)

	// ChainTips returns the backend's chain tips.
	ChainTips(ctx context.Context) ([]ChainTip, error)

	// FilterHeader returns a block's BIP158 basic filter header.
	FilterHeader(ctx context.Context, hash chainhash.Hash) (chainhash.Hash, error)

	// RawTransaction returns a mempool transaction or, with a
	// transaction index, a mined one, and where it is.
	RawTransaction(ctx context.Context, txid chainhash.Hash) (*wire.MsgTx, TxPlace, error)

	// RawTransactions looks up several transactions as RawTransaction
	// does; an entry is nil when the backend does not know it.
	RawTransactions(ctx context.Context, ids []chainhash.Hash) ([]*wire.MsgTx, []TxPlace, error)

	// MempoolEntries describes every mempool transaction.
	MempoolEntries(ctx context.Context) ([]MempoolEntry, error)

	// TestMempoolAccept asks whether the mempool would take txs.
	TestMempoolAccept(ctx context.Context, txs []*wire.MsgTx) ([]AcceptResult, error)

	// SendRawTransactionUnchecked submits a transaction without the
	// backend's own high-fee check.
	SendRawTransactionUnchecked(ctx context.Context, tx *wire.MsgTx) (chainhash.Hash, error)

	// EstimateFee returns a fee-rate estimate in sat/kvB, -1 for none.
	EstimateFee(ctx context.Context, blocks int) (int64, error)

	// MempoolSpender returns the mempool transaction spending an output,
	// nil when none does.
	MempoolSpender(ctx context.Context, op wire.OutPoint) (*chainhash.Hash, error)

	// ConnectionCount returns the backend's number of peers.
	ConnectionCount(ctx context.Context) (int64, error)
}

// Defaults of a Config.
const (
	// DefaultTimeout bounds one HTTP request to the backend.
	DefaultTimeout = 2 * time.Minute

	// DefaultRetries is how many times a failed transport is retried.
	DefaultRetries = 3

	// DefaultMaxInFlight is how many batches are in flight at once.
	DefaultMaxInFlight = 4
)

// Config describes how to reach a backend.
type Config struct {
	// Kind is the dialect.
	Kind Kind

	// Net is the network the backend must be on.
	Net *chaincfg.Params

	// Host is "host:port"; empty means 127.0.0.1 and DefaultPort.
	Host string

	// User and Password authenticate; when Password is empty CookieFile
	// is read instead.
	User, Password string

	// CookieFile is the backend's ".cookie" file ("user:password").
	CookieFile string

	// CertFile, when set, is the backend's TLS certificate and the client
	// speaks HTTPS (a remote btcd); otherwise plain HTTP.
	CertFile string

	// Timeout bounds one HTTP request; zero means DefaultTimeout.
	Timeout time.Duration

	// Retries is how many times a transport failure is retried; zero
	// means DefaultRetries, a negative value none.
	Retries int

	// MaxInFlight bounds the batches in flight at once; zero means
	// DefaultMaxInFlight.
	MaxInFlight int

	// RetryPause is the first pause between retries, doubled each time;
	// zero means 200 ms.
	RetryPause time.Duration
}

// DefaultPort returns the RPC port a backend of kind listens on for net by
// default.
func DefaultPort(kind Kind, net *chaincfg.Params) (string, error) {
	type key struct {
		kind Kind
		net  string
	}
	ports := map[key]string{
		{KindBitcoind, chaincfg.MainNetParams.Name}:       "8332",
		{KindBitcoind, chaincfg.TestNet3Params.Name}:      "18332",
		{KindBitcoind, chaincfg.TestNet4Params.Name}:      "48332",
		{KindBitcoind, chaincfg.SigNetParams.Name}:        "38332",
		{KindBitcoind, chaincfg.RegressionNetParams.Name}: "18443",
		{KindBtcd, chaincfg.MainNetParams.Name}:           "8334",
		{KindBtcd, chaincfg.TestNet3Params.Name}:          "18334",
		{KindBtcd, chaincfg.TestNet4Params.Name}:          "48334",
		{KindBtcd, chaincfg.SigNetParams.Name}:            "38332",
		{KindBtcd, chaincfg.RegressionNetParams.Name}:     "18334",
	}
	if net == nil {
		return "", fmt.Errorf("chain: no network")
	}
	p, ok := ports[key{kind, net.Name}]
	if !ok {
		return "", fmt.Errorf("chain: no default port for %s on %s",
			kind, net.Name)
	}
	return p, nil
}
