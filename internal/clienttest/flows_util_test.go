package clienttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
)

// followingDaemon starts a btcd and a descwalletd following it.
func followingDaemon(t *testing.T) (*testenv.Btcd, *testenv.Daemon) {
	t.Helper()
	b := testenv.StartBtcd(t, nil)
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: []string{"-chainbackend=btcd",
		"-chainrpcconnect=" + b.RPCAddr, "-chainrpcuser=" + b.User, "-chainrpcpassword=" + b.Pass,
		"-chainpoll=100"}})
	return b, d
}

// rawReply is a JSON-RPC reply as decoded member by member, so that the
// test can see which members are present.
type rawReply struct {
	Members map[string]json.RawMessage
	Status  int
}

// result returns the result member; it fails the test unless "error" is
// present and null.
func (r rawReply) result(t *testing.T, method string) json.RawMessage {
	t.Helper()
	e, ok := r.Members["error"]
	if !ok || string(e) != "null" {
		t.Fatalf("%s: HTTP %d, error member %q (present %v)", method, r.Status, e, ok)
	}
	res, ok := r.Members["result"]
	if !ok {
		t.Fatalf("%s: no result member", method)
	}
	return res
}

// rpcError returns the code and message of the error member.
func (r rawReply) rpcError(t *testing.T, method string) (int, string) {
	t.Helper()
	var e *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(r.Members["error"], &e); err != nil || e == nil {
		t.Fatalf("%s: want an error, got %v", method, r.Members)
	}
	return e.Code, e.Message
}

// postRaw sends one request body to path (under the daemon's URL) with
// basic authentication and returns the decoded reply.
func postRaw(t *testing.T, d *testenv.Daemon, path string, body any) rawReply {
	t.Helper()
	b, resp, data := postJSON(t, d, path, "application/json", body)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: HTTP %d, undecodable reply %q", b, resp.StatusCode, data)
	}
	return rawReply{Members: m, Status: resp.StatusCode}
}

// postJSON sends body, encoded as JSON, to path under the daemon's URL as
// contentType with basic authentication. It returns the encoded body, the
// reply (its body closed) and at most 16 MiB of the reply's body.
func postJSON(t *testing.T, d *testenv.Daemon, path, contentType string, body any) ([]byte, *http.Response, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	target := strings.TrimSuffix(d.URL, "/") + "/" + strings.TrimPrefix(path, "/")
	req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.SetBasicAuth(d.User, d.Pass)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<24))
	if err != nil {
		t.Fatal(err)
	}
	return b, resp, data
}

// walletPath is the endpoint of a wallet.
func walletPath(name string) string { return "wallet/" + url.PathEscape(name) }

// decodeInto decodes raw into out or fails the test.
func decodeInto(t *testing.T, what string, raw json.RawMessage, out any) {
	t.Helper()
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s: %s: %v", what, raw, err)
	}
}

// signWPKH signs every input of tx, each spending a P2WPKH output of key
// of the given value, and verifies each input's script.
func signWPKH(t *testing.T, key *testenv.Key, tx *wire.MsgTx, values []int64) {
	t.Helper()
	prev := map[wire.OutPoint]*wire.TxOut{}
	for i, in := range tx.TxIn {
		prev[in.PreviousOutPoint] = wire.NewTxOut(values[i], key.WPKH.Script)
	}
	fetcher := txscript.NewMultiPrevOutFetcher(prev)
	hashes := txscript.NewTxSigHashes(tx, fetcher)
	for i := range tx.TxIn {
		wit, err := txscript.WitnessSignature(tx, hashes, i, values[i], key.WPKH.Script,
			txscript.SigHashAll, key.Priv, true)
		if err != nil {
			t.Fatal(err)
		}
		tx.TxIn[i].Witness = wit
	}
	for i := range tx.TxIn {
		vm, err := txscript.NewEngine(key.WPKH.Script, tx, i, txscript.StandardVerifyFlags, nil,
			hashes, values[i], fetcher)
		if err != nil {
			t.Fatal(err)
		}
		if err := vm.Execute(); err != nil {
			t.Fatalf("input %d does not verify: %v", i, err)
		}
	}
}

// outPoint builds an outpoint from an RPC txid.
func outPoint(t *testing.T, txid string, vout uint32) *wire.OutPoint {
	t.Helper()
	h, err := chainhash.NewHashFromStrStrict(txid)
	if err != nil {
		t.Fatal(err)
	}
	return wire.NewOutPoint(h, vout)
}

// findVout returns the index of the output of tx paying script.
func findVout(t *testing.T, tx *wire.MsgTx, script []byte) uint32 {
	t.Helper()
	for i, o := range tx.TxOut {
		if bytes.Equal(o.PkScript, script) {
			return uint32(i)
		}
	}
	t.Fatalf("no output pays %x", script)
	return 0
}

// errorf is fmt.Errorf, for Eventually callbacks.
var errorf = fmt.Errorf
