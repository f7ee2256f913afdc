package methods

import (
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"

	"github.com/descwallet/descwallet/internal/sign"
)

// genesisCoinbase is the coinbase transaction of Bitcoin's genesis block.
const genesisCoinbase = "01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000"

// TestTxToJSONCoinbase checks the coinbase form of an input (coinbase hex
// instead of txid, vout and scriptSig), a bare public key output (no
// address), and the optional blockhash and hex fields in Core's order.
func TestTxToJSONCoinbase(t *testing.T) {
	tx, ok := sign.DecodeHexTx(genesisCoinbase, true, true)
	if !ok {
		t.Fatal("genesis coinbase does not decode")
	}
	block := chaincfg.MainNetParams.GenesisHash
	res := txToJSON(tx, &chaincfg.MainNetParams, txOptions{BlockHash: block, IncludeHex: true})
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := canonJSON(b)
	want := `{"txid":"4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",` +
		`"hash":"4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",` +
		`"version":1,"size":204,"vsize":204,"weight":816,"locktime":0,` +
		`"vin":[{"coinbase":"04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73","sequence":4294967295}],` +
		`"vout":[{"value":50.00000000,"n":0,"scriptPubKey":{` +
		`"asm":"04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f OP_CHECKSIG",` +
		`"desc":"pk(04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f)#vlz6ztea",` +
		`"hex":"4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac",` +
		`"type":"pubkey"}}],` +
		`"blockhash":"` + (*chainhash.Hash)(block).String() + `",` +
		`"hex":"` + genesisCoinbase + `"}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
