package scan

import (
	"context"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// TestMatchMempool checks which mempool transactions are the wallet's: a
// payment to a watched script, a spend of a watched output, a spend of an
// wallet output of another matched transaction listed before or after it
// (in a later round than its parent), and nothing else.
func TestMatchMempool(t *testing.T) {
	mineScript := []byte{0x00, 0x14, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	otherScript := []byte{0x00, 0x14, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}
	owned := wire.OutPoint{Hash: chainhash.Hash{7}, Index: 1}
	newTx := func(spend wire.OutPoint, script []byte) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&spend, nil, nil))
		tx.AddTxOut(wire.NewTxOut(1000, script))
		return tx
	}
	pay := newTx(wire.OutPoint{Hash: chainhash.Hash{1}}, mineScript)
	spend := newTx(owned, otherScript)
	child := newTx(wire.OutPoint{Hash: pay.TxHash(), Index: 0}, otherScript)
	change := newTx(wire.OutPoint{Hash: pay.TxHash(), Index: 0}, mineScript)
	grandchild := newTx(wire.OutPoint{Hash: change.TxHash(), Index: 0}, otherScript)
	// A spend of a matched transaction's output that is not the wallet's.
	foreign := newTx(wire.OutPoint{Hash: child.TxHash(), Index: 0}, otherScript)
	stranger := newTx(wire.OutPoint{Hash: chainhash.Hash{2}}, otherScript)
	wl := &WatchList{Scripts: [][]byte{mineScript}, Outpoints: []wire.OutPoint{owned}}

	tests := []struct {
		name string
		in   []*wire.MsgTx
		want [][]*wire.MsgTx
	}{
		{"none", nil, nil},
		{"stranger", []*wire.MsgTx{stranger}, nil},
		{"payment", []*wire.MsgTx{stranger, pay}, [][]*wire.MsgTx{{pay}}},
		{"spend of owned output", []*wire.MsgTx{spend, nil, pay}, [][]*wire.MsgTx{{spend, pay}}},
		{"child after parent", []*wire.MsgTx{pay, child}, [][]*wire.MsgTx{{pay}, {child}}},
		{"child before parent", []*wire.MsgTx{child, stranger, pay}, [][]*wire.MsgTx{{pay}, {child}}},
		{"grandchild first", []*wire.MsgTx{grandchild, change, pay},
			[][]*wire.MsgTx{{change, pay}, {grandchild}}},
		{"spend of a foreign output", []*wire.MsgTx{foreign, child, pay}, [][]*wire.MsgTx{{pay}, {child}}},
		{"orphan child", []*wire.MsgTx{child}, nil},
	}
	for _, tc := range tests {
		got := matchMempool(wl, tc.in)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d rounds, want %d", tc.name, len(got), len(tc.want))
			continue
		}
		for i := range got {
			if len(got[i]) != len(tc.want[i]) {
				t.Errorf("%s: round %d has %d, want %d", tc.name, i, len(got[i]), len(tc.want[i]))
				continue
			}
			for j := range got[i] {
				if got[i][j].TxHash() != tc.want[i][j].TxHash() {
					t.Errorf("%s: round %d match %d is %s, want %s", tc.name, i, j,
						got[i][j].TxHash(), tc.want[i][j].TxHash())
				}
			}
		}
	}
}

// matchMempool matches txs against wl alone, as the follower does for one
// member.
func matchMempool(wl *WatchList, txs []*wire.MsgTx) [][]*wire.MsgTx {
	x := newIndex()
	m := &member{src: staticSource{wl}}
	if err := x.load(context.Background(), m); err != nil {
		panic(err)
	}
	return matchMempoolIndex(x, txs, []bool{true}, nil)[0]
}

// staticSource is a Source of a fixed watch list.
type staticSource struct{ wl *WatchList }

func (s staticSource) WatchList(context.Context) (*WatchList, error) { return s.wl, nil }
func (s staticSource) Generation() uint64                            { return s.wl.Generation }
