package coinselect

import (
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// pool builds a mempool snapshot from (id, vsize, fee, parents) rows.
type poolRow struct {
	id      byte
	vsize   int64
	fee     int64
	parents []byte
}

func testPool(rows ...poolRow) map[chainhash.Hash]*MempoolTx {
	p := map[chainhash.Hash]*MempoolTx{}
	for _, r := range rows {
		tx := &MempoolTx{TxID: chainhash.Hash{r.id}, VSize: r.vsize, Fee: r.fee}
		for _, par := range r.parents {
			tx.Parents = append(tx.Parents, chainhash.Hash{par})
		}
		p[tx.TxID] = tx
	}
	return p
}

func op(id byte, n uint32) wire.OutPoint { return wire.OutPoint{Hash: chainhash.Hash{id}, Index: n} }

// TestIndividualBumpFees works Core's MiniMiner cases out by hand: the
// grandparent example of mini_miner.cpp (a child whose ancestor set makes
// the target but whose own rate does not: the larger of the two deficits),
// a child paying for its parent (both mined: nothing to add), a lone
// low-rate transaction, and a confirmed coin.
func TestIndividualBumpFees(t *testing.T) {
	const rate FeeRate = 10000 // 10 sat/vB
	// Grandparent 1700 vB at 1 sat/vB; parents 200 vB paying 17 000 and
	// 3 000; their child 100 vB paying 900.
	pool := testPool(
		poolRow{1, 1700, 1700, nil},
		poolRow{2, 200, 17000, []byte{1}},
		poolRow{3, 200, 3000, []byte{1}},
		poolRow{4, 100, 900, []byte{2, 3}},
		// A child paying for its parent, and a lone transaction.
		poolRow{5, 100, 100, nil},
		poolRow{6, 100, 5000, []byte{5}},
		poolRow{7, 200, 200, nil},
	)
	got, ok := IndividualBumpFees(pool, []wire.OutPoint{op(1, 0), op(2, 1), op(3, 0), op(4, 0), op(4, 1),
		op(5, 0), op(6, 0), op(7, 0), op(9, 0)}, rate, nil)
	if !ok {
		t.Fatal("not computed")
	}
	want := map[wire.OutPoint]int64{
		op(1, 0): 17000 - 1700,              // the grandparent alone
		op(2, 1): 19000 - 18700,             // parent 1 and the grandparent
		op(3, 0): 19000 - 4700,              // parent 2 and the grandparent
		op(4, 0): 1000 - 900, op(4, 1): 100, // the child's own rate is short; its set's is not
		op(5, 0): 0, op(6, 0): 0, // mined together at 25.5 sat/vB
		op(7, 0): 2000 - 200,
		op(9, 0): 0, // confirmed
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for o, w := range want {
		if got[o] != w {
			t.Errorf("%v: bump %d, want %d", o, got[o], w)
		}
	}
}

// TestCombinedBumpFee: two coins of children of one low-rate parent each
// owe the whole parent alone; together they owe it once.
func TestCombinedBumpFee(t *testing.T) {
	const rate FeeRate = 20000
	pool := testPool(
		poolRow{1, 1000, 1000, nil},
		poolRow{2, 100, 1000, []byte{1}},
		poolRow{3, 100, 1000, []byte{1}},
	)
	ind, ok := IndividualBumpFees(pool, []wire.OutPoint{op(2, 0), op(3, 0)}, rate, nil)
	if !ok || ind[op(2, 0)] != 22000-2000 || ind[op(3, 0)] != 22000-2000 {
		t.Fatalf("individual %v", ind)
	}
	comb, ok := CombinedBumpFee(pool, []wire.OutPoint{op(2, 0), op(3, 0)}, rate, nil)
	if !ok || comb != 24000-3000 {
		t.Fatalf("combined %d", comb)
	}
	// A coin whose ancestry is mined at the rate owes nothing, and a
	// confirmed one neither.
	comb, ok = CombinedBumpFee(testPool(poolRow{1, 100, 5000, nil}), []wire.OutPoint{op(1, 0), op(2, 0)}, rate, nil)
	if !ok || comb != 0 {
		t.Fatalf("combined of a paying transaction %d", comb)
	}
}

// TestBumpFeesReplaced: a fee bump's original (and its descendants) is
// left out (Core's to-be-replaced conflicts): the parent it paid for owes
// its shortfall again, and the original's own outputs owe nothing.
func TestBumpFeesReplaced(t *testing.T) {
	const rate FeeRate = 10000
	pool := testPool(
		poolRow{1, 100, 100, nil},
		poolRow{2, 100, 5000, []byte{1}}, // the original, paying for 1
		poolRow{3, 100, 100, []byte{2}},  // its child
		poolRow{4, 100, 100, []byte{1}},  // another child of 1
	)
	ops := []wire.OutPoint{op(1, 0), op(2, 1), op(3, 0)}
	got, ok := IndividualBumpFees(pool, ops, rate, nil)
	if !ok || got[op(1, 0)] != 0 || got[op(2, 1)] != 0 || got[op(3, 0)] != 1000-100 {
		t.Fatalf("without replacement: %v", got)
	}
	got, ok = IndividualBumpFees(pool, ops, rate, []chainhash.Hash{{2}})
	if !ok || got[op(1, 0)] != 1000-100 || got[op(2, 1)] != 0 || got[op(3, 0)] != 0 {
		t.Fatalf("replacing 2: %v", got)
	}
	comb, ok := CombinedBumpFee(pool, []wire.OutPoint{op(1, 0), op(4, 0)}, rate, []chainhash.Hash{{2}})
	if !ok || comb != 2000-200 {
		t.Fatalf("combined replacing 2: %d", comb)
	}
}

// TestBumpFeeClusterLimit: a cluster over MaxBumpCluster transactions is
// not computed (Core's "enormous cluster" refusal).
func TestBumpFeeClusterLimit(t *testing.T) {
	pool := map[chainhash.Hash]*MempoolTx{}
	var prev *chainhash.Hash
	for i := 0; i <= MaxBumpCluster; i++ {
		id := chainhash.Hash{byte(i), byte(i >> 8), 1}
		tx := &MempoolTx{TxID: id, VSize: 100, Fee: 100}
		if prev != nil {
			tx.Parents = []chainhash.Hash{*prev}
		}
		pool[id] = tx
		prev = &id
	}
	if _, ok := IndividualBumpFees(pool, []wire.OutPoint{{Hash: *prev}}, 10000, nil); ok {
		t.Fatal("individual bump fees of an enormous cluster")
	}
	if _, ok := CombinedBumpFee(pool, []wire.OutPoint{{Hash: *prev}}, 10000, nil); ok {
		t.Fatal("combined bump fee of an enormous cluster")
	}
}

// TestMempoolAncestry: ancestors count the transaction and its
// in-mempool ancestors; the cluster is everything connected to it.
func TestMempoolAncestry(t *testing.T) {
	pool := testPool(
		poolRow{1, 100, 100, nil},
		poolRow{2, 100, 100, []byte{1}},
		poolRow{3, 100, 100, []byte{2, 9}}, // 9 is confirmed
		poolRow{4, 100, 100, []byte{1}},
		poolRow{5, 100, 100, nil},
	)
	children := Children(pool)
	for _, c := range []struct {
		id           byte
		anc, cluster int
	}{{1, 1, 4}, {2, 2, 4}, {3, 3, 4}, {4, 2, 4}, {5, 1, 1}, {9, 0, 0}} {
		anc, cluster := MempoolAncestry(pool, children, chainhash.Hash{c.id})
		if anc != c.anc || cluster != c.cluster {
			t.Errorf("tx %d: ancestors %d cluster %d, want %d %d", c.id, anc, cluster, c.anc, c.cluster)
		}
	}
}
