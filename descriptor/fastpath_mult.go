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
// (Montgomery's trick), so an affine addition costs a few multiplications
// instead of a mixed Jacobian addition and the result needs no final
// conversion.

// baseTable holds b·256^w·G in affine form for w in [0, 32), b in [1, 256).
var baseTable struct {
	once sync.Once
	x, y [32][256]btcec.FieldVal
}

func initBaseTable() {
	var base btcec.JacobianPoint // 256^w·G
	var one btcec.ModNScalar
	one.SetInt(1)
	btcec.ScalarBaseMultNonConst(&one, &base)
	for w := 0; w < 32; w++ {
		var acc btcec.JacobianPoint
		acc.Set(&base)
		for b := 1; b < 256; b++ {
			if b > 1 {
				var next btcec.JacobianPoint
				btcec.AddNonConst(&acc, &base, &next)
				acc.Set(&next)
			}
			a := acc
			if !secp.ToAffine(&a) {
				a.ToAffine()
			}
			baseTable.x[w][b].Set(&a.X).Normalize()
			baseTable.y[w][b].Set(&a.Y).Normalize()
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
	x, y    [scriptBatch]btcec.FieldVal // results (affine, normalized)
	inf     [scriptBatch]bool           // point at infinity so far
	bad     [scriptBatch]bool           // needs the general path
	pending [scriptBatch]int            // elements added to in this step
	px, py  [scriptBatch]*btcec.FieldVal
	diff    [scriptBatch]btcec.FieldVal
	acc     [scriptBatch]btcec.FieldVal
}

// childPoints sets b.x[j], b.y[j] to ks[j]·G + P (P = (parX, parY),
// affine) for every j, except where b.bad[j] is set: there an addition met
// equal x coordinates (doubling or a point at infinity, practically never)
// and the caller computes that point the general way.
func (b *pointBatch) childPoints(ks []btcec.ModNScalar, parX, parY *btcec.FieldVal) {
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
				b.x[j].Set(&baseTable.x[w][v])
				b.y[j].Set(&baseTable.y[w][v])
				b.inf[j] = false
				continue
			}
			b.pending[np] = j
			b.px[np], b.py[np] = &baseTable.x[w][v], &baseTable.y[w][v]
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
			b.x[j].Set(parX)
			b.y[j].Set(parY)
			b.inf[j] = false
			continue
		}
		b.pending[np] = j
		b.px[np], b.py[np] = parX, parY
		np++
	}
	b.addPending(np)
}

// addPending adds (px[i], py[i]) to the point of element pending[i] for i
// in [0, np), in affine coordinates with one shared inversion.
func (b *pointBatch) addPending(np int) {
	if np == 0 {
		return
	}
	var t btcec.FieldVal
	// diff[i] = x2 - x1, acc[i] = product of the non-zero diffs so far.
	var running btcec.FieldVal
	running.SetInt(1)
	for i := 0; i < np; i++ {
		j := b.pending[i]
		t.NegateVal(&b.x[j], 1)
		b.diff[i].Add2(b.px[i], &t).Normalize()
		if b.diff[i].IsZero() {
			b.bad[j] = true
		} else {
			running.Mul(&b.diff[i])
		}
		b.acc[i].Set(&running)
	}
	// running is a product of non-zero field elements: never zero.
	inv, _ := secp.InvertField(&running)
	inv.Normalize()
	for i := np - 1; i >= 0; i-- {
		j := b.pending[i]
		if b.bad[j] {
			continue
		}
		// 1/diff[i] = inv · acc[i-1], the product of the diffs before it
		// (a skipped element leaves the running product unchanged).
		var dinv btcec.FieldVal
		if i > 0 {
			dinv.Mul2(&inv, &b.acc[i-1])
		} else {
			dinv.Set(&inv)
		}
		inv.Mul(&b.diff[i])

		x1, y1 := b.x[j], b.y[j]
		var lambda, num, x3, y3 btcec.FieldVal
		t.NegateVal(&y1, 1)
		num.Add2(b.py[i], &t)    // y2 - y1
		lambda.Mul2(&num, &dinv) // (y2 - y1) / (x2 - x1)
		x3.SquareVal(&lambda)    // λ²
		t.NegateVal(&x1, 1)
		x3.Add(&t)
		t.NegateVal(b.px[i], 1)
		x3.Add(&t).Normalize() // λ² - x1 - x2
		t.NegateVal(&x3, 1)
		t.Add(&x1)           // x1 - x3
		y3.Mul2(&lambda, &t) // λ(x1 - x3)
		t.NegateVal(&y1, 1)
		y3.Add(&t).Normalize() // λ(x1 - x3) - y1
		b.x[j], b.y[j] = x3, y3
	}
}
