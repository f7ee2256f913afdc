package acctest

import (
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// goneFixture is a chain whose block 1 pays the wallet 100 000 sat, and
// two spends of that coin paying a stranger with change back: orig and
// its replacement repl, which pays 1 000 sat more fee.
type goneFixture struct {
	scripts    Scripts
	fund       *wire.MsgTx
	orig, repl *wire.MsgTx
	blocks     []Block
}

func newGoneFixture() *goneFixture {
	mine, change, stranger := []byte{0x51, 0x01}, []byte{0x51, 0x02}, []byte{0x51, 0x03}
	f := &goneFixture{scripts: Scripts{string(mine): {Address: "mine"}, string(change): {Address: "change", Change: true}}}
	coinbase := func(tag byte) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Index: ^uint32(0)}, []byte{tag}, nil))
		tx.AddTxOut(wire.NewTxOut(5_000_000_000, stranger))
		return tx
	}
	f.fund = wire.NewMsgTx(2)
	f.fund.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{9}}, nil, nil))
	f.fund.AddTxOut(wire.NewTxOut(100_000, mine))
	spend := func(changeValue int64) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: f.fund.TxHash()}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(50_000, stranger))
		tx.AddTxOut(wire.NewTxOut(changeValue, change))
		return tx
	}
	f.orig, f.repl = spend(49_000), spend(48_000)
	for h := int32(0); h < 3; h++ {
		b := Block{Height: h, Hash: chainhash.Hash{byte(h + 1)}, Txs: []*wire.MsgTx{coinbase(byte(h))}}
		if h == 1 {
			b.Txs = append(b.Txs, f.fund)
		}
		f.blocks = append(f.blocks, b)
	}
	return f
}

func (f *goneFixture) fundCoin(v *View) bool {
	for _, u := range v.Unspent {
		if u.TxID == f.fund.TxHash().String() {
			return true
		}
	}
	return false
}

// TestModelReplacedTransaction: a bumpfee replacement in the mempool
// takes the original's place; the original stays listed, unconfirmed and
// untrusted, with no unspent output; the replacement's change counts as
// trusted balance but is not safe; once the replacement is mined the
// original shows minus the depth of its block.
func TestModelReplacedTransaction(t *testing.T) {
	f := newGoneFixture()
	origID, replID := f.orig.TxHash(), f.repl.TxHash()
	c := &Chain{Blocks: f.blocks, Mempool: []*wire.MsgTx{f.repl}, Gone: []*wire.MsgTx{f.orig},
		Replacements: map[chainhash.Hash]bool{replID: true}}
	v := Compute(c, f.scripts, nil)
	if v.Balances != (Balances{Trusted: 48_000}) {
		t.Errorf("balances %+v", v.Balances)
	}
	if len(v.Unspent) != 1 || v.Unspent[0].TxID != replID.String() || v.Unspent[0].Safe {
		t.Errorf("unspent %v", v.Unspent)
	}
	o := v.Txs[origID.String()]
	if o.Confirmations != 0 || o.Trusted == nil || *o.Trusted || o.Fee == nil || *o.Fee != -1_000 || len(o.Details) != 1 {
		t.Errorf("original %s", o)
	}
	r := v.Txs[replID.String()]
	if r.Trusted == nil || !*r.Trusted || *r.Fee != -2_000 {
		t.Errorf("replacement %s", r)
	}

	// The replacement mined in block 2 (tip 2): the original is
	// conflicted at depth -1, then -2 a block later.
	c = &Chain{Blocks: f.blocks, Gone: []*wire.MsgTx{f.orig}, Replacements: c.Replacements}
	c.Blocks[2].Txs = append(c.Blocks[2].Txs, f.repl)
	v = Compute(c, f.scripts, nil)
	if o := v.Txs[origID.String()]; o.Confirmations != -1 || o.BlockHash != "" || *o.Trusted {
		t.Errorf("original conflicted by block 2: %s", o)
	}
	if len(v.Unspent) != 1 || !v.Unspent[0].Safe || v.Balances.Trusted != 48_000 {
		t.Errorf("replacement mined: unspent %v balances %+v", v.Unspent, v.Balances)
	}
	c.Blocks = append(c.Blocks, Block{Height: 3, Hash: chainhash.Hash{4}, Txs: f.blocks[0].Txs[:1]})
	if o := Compute(c, f.scripts, nil).Txs[origID.String()]; o.Confirmations != -2 {
		t.Errorf("original a block later: %s", o)
	}
}

// TestModelUnrelayedTransaction: a wallet payment btcd never saw keeps its
// input spent and has no unspent output; abandoned, its input is the
// wallet's to spend again and its send is marked abandoned; conflicted by
// a block, it is no longer abandoned.
func TestModelUnrelayedTransaction(t *testing.T) {
	f := newGoneFixture()
	origID := f.orig.TxHash()
	c := &Chain{Blocks: f.blocks, Gone: []*wire.MsgTx{f.orig}}
	v := Compute(c, f.scripts, nil)
	if f.fundCoin(v) || len(v.Unspent) != 0 || v.Balances != (Balances{}) {
		t.Errorf("never relayed: unspent %v balances %+v", v.Unspent, v.Balances)
	}
	if o := v.Txs[origID.String()]; o.Confirmations != 0 || *o.Trusted || o.Details[0].Abandoned {
		t.Errorf("never relayed: %s", o)
	}

	c.Abandoned = map[chainhash.Hash]bool{origID: true}
	v = Compute(c, f.scripts, nil)
	if !f.fundCoin(v) || v.Balances != (Balances{Trusted: 100_000}) {
		t.Errorf("abandoned: unspent %v balances %+v", v.Unspent, v.Balances)
	}
	if o := v.Txs[origID.String()]; len(o.Details) != 1 || !o.Details[0].Abandoned {
		t.Errorf("abandoned: %s", o)
	}
	abandonedEntries := 0
	for _, e := range v.Entries {
		if e.TxID == origID.String() && e.Abandoned {
			abandonedEntries++
		}
	}
	if abandonedEntries != 1 {
		t.Errorf("abandoned: listtransactions %s", JoinEntries(v.Entries))
	}

	// Another spend of the coin, in the mempool: the abandoned one is
	// mempool-conflicted and still abandoned; mined, it is conflicted
	// by the block and no longer abandoned.
	c.Mempool = []*wire.MsgTx{f.repl}
	if o := Compute(c, f.scripts, nil).Txs[origID.String()]; o.Confirmations != 0 || !o.Details[0].Abandoned {
		t.Errorf("abandoned, conflicted in the mempool: %s", o)
	}
	c.Mempool = nil
	c.Blocks[2].Txs = append(c.Blocks[2].Txs, f.repl)
	if o := Compute(c, f.scripts, nil).Txs[origID.String()]; o.Confirmations != -1 || o.Details[0].Abandoned {
		t.Errorf("abandoned, conflicted by a block: %s", o)
	}
}

// TestModelGoneDescendant: a gone transaction spending the change of a
// gone parent conflicted by a block inherits the parent's conflict depth;
// one spending the change of a parent conflicted in the mempool is listed
// unconfirmed and untrusted, and neither leaves an unspent output.
func TestModelGoneDescendant(t *testing.T) {
	f := newGoneFixture()
	child := wire.NewMsgTx(2)
	child.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: f.orig.TxHash(), Index: 1}, nil, nil))
	child.AddTxOut(wire.NewTxOut(48_500, []byte{0x51, 0x03}))
	c := &Chain{Blocks: f.blocks, Gone: []*wire.MsgTx{child, f.orig}}
	c.Blocks[1].Txs = append(c.Blocks[1].Txs, f.repl)
	v := Compute(c, f.scripts, nil)
	if ch := v.Txs[child.TxHash().String()]; ch.Confirmations != -2 {
		t.Errorf("child of a block-conflicted parent: %s", ch)
	}
	c.Blocks = newGoneFixture().blocks
	c.Mempool = []*wire.MsgTx{f.repl}
	v = Compute(c, f.scripts, nil)
	if ch := v.Txs[child.TxHash().String()]; ch.Confirmations != 0 || *ch.Trusted {
		t.Errorf("child of a mempool-conflicted parent: %s", ch)
	}
	if len(v.Unspent) != 1 || v.Unspent[0].TxID != f.repl.TxHash().String() {
		t.Errorf("unspent %v", v.Unspent)
	}
}
