package methods

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/benchcpu"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// BenchmarkEventDelivery reads the same 10 000 events of a wallet's log
// (5000 payments received, then mined) over the RPC port two ways: the
// event stream (GET /wallet/w/events, Server-Sent Events, read until the
// last event) and listwalletevents (one call with limit 10000, the most a
// call returns). Both clients check each event's JSON. Both report
// events/s (wall time) and events/cpu-s (the process's CPU time, server and
// client, steadier on a loaded machine); the stream's ratio to
// listwalletevents is the README's figure.
func BenchmarkEventDelivery(b *testing.B) {
	const payments = 5000
	ctx := context.Background()
	mgr := wallet.NewManager(wallet.ManagerConfig{NetDir: b.TempDir() + "/regtest",
		Net: &chaincfg.RegressionNetParams, Opener: walletdb.Opener{}})
	defer mgr.Close()
	w, _, err := mgr.Create(ctx, "w", wallet.CreateOptions{DisablePrivateKeys: true, Blank: true})
	if err != nil {
		b.Fatal(err)
	}
	spkHex := "0014" + strings.Repeat("11", 20)
	res, err := w.ImportDescriptors(ctx, []wallet.ImportElement{{HasDesc: true,
		Desc: descriptor.AddChecksum("raw(" + spkHex + ")"), Timestamp: 1700000000}}, nil)
	if err != nil || !res[0].Success {
		b.Fatalf("import: %v %+v", err, res)
	}
	spk := append([]byte{0x00, 0x14}, bytes.Repeat([]byte{0x11}, 20)...)
	var txs []*wire.MsgTx
	for i := range payments {
		tx := wire.NewMsgTx(2)
		var h chainhash.Hash
		binary.LittleEndian.PutUint64(h[:], uint64(i+1))
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: h}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(1000, spk))
		txs = append(txs, tx)
	}
	for i := 0; i < payments; i += 500 {
		if err := w.MempoolTxs(ctx, txs[i:i+500]); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < payments; i += 500 {
		height := int32(100 + i/500)
		blk := wallet.BlockInfo{Height: height, Hash: chainhash.Hash{byte(height)}, Time: 1700000000 + int64(height)}
		if err := w.BlockConnected(ctx, blk, txs[i:i+500], nil); err != nil {
			b.Fatal(err)
		}
	}
	evs, err := w.Events(ctx, 0, 20000)
	if err != nil {
		b.Fatal(err)
	}
	total := len(evs)
	if total != 2*payments {
		b.Fatalf("%d events in the log", total)
	}

	d := &Deps{Net: &chaincfg.RegressionNetParams, Wallets: mgr}
	auth := rpc.NewAuthenticator()
	auth.AddPassword("u", "p")
	s, err := rpc.NewServer(rpc.Config{Methods: All(d), Auth: auth, MapError: MapError, Events: EventFeed{Wallets: mgr}})
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go s.Serve(l)
	defer s.Shutdown(ctx)
	base := "http://" + l.Addr().String()
	client := &http.Client{Transport: &http.Transport{}}

	b.Run("stream", func(b *testing.B) {
		cpu := benchcpu.Used()
		for range b.N {
			req, _ := http.NewRequest("GET", base+"/wallet/w/events", nil)
			req.SetBasicAuth("u", "p")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			rd := bufio.NewReaderSize(resp.Body, 64<<10)
			want := "id: " + strconv.Itoa(total) + "\n"
			got := 0
			for {
				line, err := rd.ReadSlice('\n')
				if err != nil {
					b.Fatalf("after %d events: %v", got, err)
				}
				if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
					// Checked as the other client's decoder checks each
					// element.
					if !json.Valid(data) {
						b.Fatalf("data %q", data)
					}
					got++
				}
				if string(line) == want {
					break
				}
			}
			resp.Body.Close()
			if got != total-1 { // the last data line follows its id
				b.Fatalf("%d events", got+1)
			}
		}
		b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		if used := benchcpu.Used() - cpu; cpu > 0 && used > 0 {
			b.ReportMetric(float64(total)*float64(b.N)/used.Seconds(), "events/cpu-s")
		}
	})
	b.Run("listwalletevents", func(b *testing.B) {
		body := `{"method":"listwalletevents","params":[0,10000],"id":1}`
		cpu := benchcpu.Used()
		for range b.N {
			req, _ := http.NewRequest("POST", base+"/wallet/w", strings.NewReader(body))
			req.SetBasicAuth("u", "p")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var reply struct {
				Result []json.RawMessage `json:"result"`
			}
			err = json.NewDecoder(resp.Body).Decode(&reply)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || len(reply.Result) != total {
				b.Fatalf("%d events: %v", len(reply.Result), err)
			}
		}
		b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		if used := benchcpu.Used() - cpu; cpu > 0 && used > 0 {
			b.ReportMetric(float64(total)*float64(b.N)/used.Seconds(), "events/cpu-s")
		}
	})
}
