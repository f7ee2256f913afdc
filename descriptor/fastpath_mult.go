package descriptor

import (
	"sync"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/descwallet/descwallet/internal/secp"
)

// Batched child points for the fast path.
//
// A BIP 32 public child is P + k·G for a parent point P and a scalar k that
// depends on the index. Each k·G is a sum of 32 table points (one per byte
// of k, b·256^w·G), which this file adds in affine coordinates for a whole
// batch of scalars at once: the batch shares one field inversion per step
// (Montgomery's trick, secp.BatchAdder), so an affine addition costs a few
// multiplications instead of a mixed Jacobian addition and the result
// needs no final conversion. The points are public: the additions run on
// secp's variable-time four-limb field, which allocates nothing.

// baseTable holds b·256^w·G in affine form for w in [0, 32), b in [1, 256).
var baseTable struct {
	once sync.Once
	p    [32][256]secp.AffinePoint
}

func initBaseTable() {
	var base btcec.JacobianPoint // 256^w·G
	var one btcec.ModNScalar
	one.SetInt(1)
	btcec.ScalarBaseMultNonConst(&one, &base)
	var (
		row     [255]btcec.JacobianPoint // b·256^w·G for b in [1, 256)
		scratch [255]btcec.FieldVal
	)
	for w := 0; w < 32; w++ {
		row[0].Set(&base)
		for b := 1; b < 255; b++ {
			btcec.AddNonConst(&row[b-1], &base, &row[b])
		}
		// One inversion for the row; no multiple of G below n is the
		// point at infinity.
		secp.ToAffineBatch(row[:], scratch[:])
		for b := 1; b < 256; b++ {
			baseTable.p[w][b].SetFieldVals(&row[b-1].X, &row[b-1].Y)
		}
		for i := 0; i < 8; i++ {
			var d btcec.JacobianPoint
			btcec.DoubleNonConst(&base, &d)
			base.Set(&d)
		}
	}
}

// pointBatch is the working memory of childPoints for up to scriptBatch
// scalars.
type pointBatch struct {
	p       [scriptBatch]secp.AffinePoint // results
	inf     [scriptBatch]bool             // point at infinity so far
	bad     [scriptBatch]bool             // needs the general path
	pending [scriptBatch]int              // elements added to in this step
	acc     [scriptBatch]*secp.AffinePoint
	add     [scriptBatch]*secp.AffinePoint
	failed  [scriptBatch]bool
	adder   secp.BatchAdder
}

// childPoints sets b.p[j] to ks[j]·G + par for every j, except where
// b.bad[j] is set: there an addition met equal x coordinates (doubling or a
// point at infinity, practically never) and the caller computes that point
// the general way.
func (b *pointBatch) childPoints(ks []btcec.ModNScalar, par *secp.AffinePoint) {
	baseTable.once.Do(initBaseTable)
	n := len(ks)
	var bytes [scriptBatch][32]byte
	for j := 0; j < n; j++ {
		bytes[j] = ks[j].Bytes()
		b.inf[j] = true
		b.bad[j] = false
	}
	for w := 0; w < 32; w++ {
		np := 0
		for j := 0; j < n; j++ {
			v := bytes[j][31-w]
			if v == 0 || b.bad[j] {
				continue
			}
			if b.inf[j] {
				b.p[j] = baseTable.p[w][v]
				b.inf[j] = false
				continue
			}
			b.pending[np] = j
			b.add[np] = &baseTable.p[w][v]
			np++
		}
		b.addPending(np)
	}
	// Finally + P.
	np := 0
	for j := 0; j < n; j++ {
		if b.bad[j] {
			continue
		}
		if b.inf[j] {
			b.p[j] = *par
			b.inf[j] = false
			continue
		}
		b.pending[np] = j
		b.add[np] = par
		np++
	}
	b.addPending(np)
}

// addPending adds *add[i] to the point of element pending[i] for i in
// [0, np), with one shared inversion.
func (b *pointBatch) addPending(np int) {
	if np == 0 {
		return
	}
	for i := 0; i < np; i++ {
		b.acc[i] = &b.p[b.pending[i]]
	}
	b.adder.Add(b.acc[:np], b.add[:np], b.failed[:np])
	for i := 0; i < np; i++ {
		if b.failed[i] {
			b.bad[b.pending[i]] = true
		}
	}
}
