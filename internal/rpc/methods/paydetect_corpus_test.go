package methods

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/testvec"
)

// paydetectMethods are the payment-detection methods whose recorded steps
// of core_rpc/spend.json are compared; setupMethods build the wallets the
// scenarios use and are compared too.
var (
	paydetectMethods = map[string]bool{
		"listsinceblock": true, "getreceivedbyaddress": true, "getreceivedbylabel": true,
		"listreceivedbyaddress": true, "listreceivedbylabel": true, "listaddressgroupings": true,
	}
	setupMethods = map[string]bool{
		"createwallet": true, "importdescriptors": true, "getnewaddress": true,
		"getrawchangeaddress": true, "unloadwallet": true,
	}
)

// TestSpendCorpusPaymentDetection replays the scenarios of
// core_rpc/spend.json that call the payment-detection methods (the
// routing errors, the empty wallet's detection calls and the address
// arguments), each on a fresh node: the wallet-building steps and every
// step of a payment-detection method must give Core's reply; steps of
// other methods are left out.
func TestSpendCorpusPaymentDetection(t *testing.T) {
	var file struct {
		Scenarios []walletScenario `json:"scenarios"`
	}
	testvec.Load(t, "core_rpc/spend.json", &file)
	ran := 0
	for _, sc := range file.Scenarios {
		switch sc.ID {
		case "wallet-routing", "empty-wallet-detection", "address-and-message-errors":
		default:
			continue
		}
		t.Run(sc.ID, func(t *testing.T) {
			keep := sc
			keep.Steps = nil
			checked := 0
			for _, st := range sc.Steps {
				if paydetectMethods[st.Method] || setupMethods[st.Method] {
					keep.Steps = append(keep.Steps, st)
					if paydetectMethods[st.Method] {
						checked++
					}
				}
			}
			if checked == 0 {
				t.Fatal("no payment-detection step in the scenario")
			}
			ran += checked
			replayWalletScenario(t, keep, "sqlite")
		})
	}
	if ran < 40 {
		t.Errorf("only %d payment-detection steps replayed", ran)
	}
}

// TestTxEntryFieldOrder checks Core's two layouts of a listing entry:
// abandoned after vout on a receive, last on a send.
func TestTxEntryFieldOrder(t *testing.T) {
	h, i, bt := int32(5), int32(1), int64(7)
	tj := &txJSON{Confirmations: 1, BlockHash: "00", BlockHeight: &h, BlockIndex: &i, BlockTime: &bt,
		TxID: "aa", WTxID: "bb", WalletConflicts: []string{}, MempoolConflict: []string{}, Replaceable: "no"}
	keys := func(e txEntry) string {
		b, err := json.Marshal(e.layout())
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(orderedKeys(t, b), ",")
	}
	recv := txEntry{Address: "a", ParentDescs: []string{}, Category: "receive", Amount: 1, Vout: 0, txJSON: tj}
	want := "address,parent_descs,category,amount,vout,abandoned,confirmations,blockhash,blockheight,blockindex,blocktime,txid,wtxid,walletconflicts,mempoolconflicts,time,timereceived,bip125-replaceable"
	if got := keys(recv); got != want {
		t.Errorf("receive:\n got %s\nwant %s", got, want)
	}
	fee := new(rpc.Amount)
	*fee = -1
	send := txEntry{Address: "a", Category: "send", Amount: -1, Vout: 0, Fee: fee, txJSON: tj}
	want = "address,category,amount,vout,fee,confirmations,blockhash,blockheight,blockindex,blocktime,txid,wtxid,walletconflicts,mempoolconflicts,time,timereceived,bip125-replaceable,abandoned"
	if got := keys(send); got != want {
		t.Errorf("send:\n got %s\nwant %s", got, want)
	}
}

// orderedKeys returns the member names of a JSON object in order.
func orderedKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
