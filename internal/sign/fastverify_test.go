package sign

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"github.com/descwallet/descwallet/internal/script"
)

// fastFixture signs a transaction whose inputs are the templates
// fastAccept knows: P2WPKH, P2PKH with a compressed and with an
// uncompressed key, P2SH-P2WPKH, a second P2WPKH input of the first key,
// an input of each kind for a key the provider lacks (left unsigned), and
// taproot key-path spends of a key's own X coordinate, of a key's BIP 86
// output key and of a key the provider lacks.
// It returns the call's context after signing (its signature cache
// seeded) and the keys.
func fastFixture(t testing.TB, ht txscript.SigHashType) (*txContext, []*Key) {
	t.Helper()
	keys := []*Key{benchKey(31), benchKey(32), benchKey(33), benchKey(34)}
	keys = append(keys, NewKey(keys[3].priv, false)) // the same scalar, uncompressed
	missing := benchKey(35)
	p := NewProvider(keys[0], keys[1], keys[2], keys[4])
	hashOf := func(k *Key) []byte { h := script.Hash160(k.PubKey()); return h[:] }
	redeem := script.PayToWitnessPubKeyHash(hashOf(keys[2]))
	p.AddScript(redeem)
	rh := script.Hash160(redeem)
	scripts := [][]byte{
		script.PayToWitnessPubKeyHash(hashOf(keys[0])),
		script.PayToPubKeyHash(hashOf(keys[1])),
		script.PayToPubKeyHash(hashOf(keys[4])),
		script.PayToScriptHash(rh[:]),
		script.PayToWitnessPubKeyHash(hashOf(keys[0])),
		script.PayToWitnessPubKeyHash(hashOf(missing)),
		script.PayToPubKeyHash(hashOf(missing)),
		p2trFor(keys[0]),
		p2trBIP86(keys[1]),
		p2trFor(missing),
	}
	tx, coins := benchTx(len(scripts), func(i int) []byte { return scripts[i] })
	for len(tx.TxOut) < len(tx.TxIn) {
		tx.AddTxOut(&wire.TxOut{Value: 1000 * int64(len(tx.TxOut)), PkScript: scripts[len(tx.TxOut)]})
	}
	ctx := newTxContext(tx, coins, p, ht)
	if _, err := ctx.run(); err != nil {
		t.Fatal(err)
	}
	return ctx, append(keys, missing)
}

// p2trBIP86 is the BIP 86 output (no script tree) of k as internal key.
func p2trBIP86(k *Key) []byte {
	_, tweaked := k.schnorrKeys()
	return script.PayToTaproot(tweaked.xonly[:])
}

// engineVerify runs btcd's script engine over input i with the given
// scriptSig and witness, without a signature cache (every signature
// verified in full).
func engineVerify(ctx *txContext, i int, scriptSig []byte, witness wire.TxWitness) error {
	view := ctx.newView()
	orig := view.TxIn[i]
	view.TxIn[i] = &wire.TxIn{PreviousOutPoint: orig.PreviousOutPoint, Sequence: orig.Sequence,
		SignatureScript: scriptSig, Witness: witness}
	vm, err := txscript.NewEngine(ctx.coins[i].PkScript, view, i, VerifyFlags, nil,
		ctx.sigHashes, ctx.coins[i].Amount, ctx.fetcher)
	if err != nil {
		return err
	}
	return vm.Execute()
}

// checkFast asks fastAccept about one candidate and fails the test when it
// accepts what the engine refuses. It returns fastAccept's answer.
func checkFast(t testing.TB, ctx *txContext, i int, scriptSig []byte, witness wire.TxWitness, what string) bool {
	t.Helper()
	s := &inputSigner{ctx: ctx, idx: i, view: ctx.newView(), coin: ctx.coins[i]}
	fast := s.fastAccept(scriptSig, witness)
	if fast {
		if err := engineVerify(ctx, i, scriptSig, witness); err != nil {
			t.Fatalf("input %d, %s: accepted without the engine, which says %v (scriptSig %x witness %x)",
				i, what, err, scriptSig, witness)
		}
	}
	return fast
}

// highS returns der with S replaced by n - S (same R), re-encoded in DER.
func highS(t testing.TB, der []byte) []byte {
	t.Helper()
	sig, err := ecdsa.ParseDERSignature(der)
	if err != nil {
		t.Fatal(err)
	}
	r, s := sig.R(), sig.S()
	s.Negate()
	enc := func(v *secp256k1.ModNScalar) []byte {
		b := v.Bytes()
		out := bytes.TrimLeft(b[:], "\x00")
		if out[0]&0x80 != 0 {
			out = append([]byte{0}, out...)
		}
		return append([]byte{0x02, byte(len(out))}, out...)
	}
	body := append(enc(&r), enc(&s)...)
	return append([]byte{0x30, byte(len(body))}, body...)
}

// stackOf returns the two items of a signed input: from the witness, or
// from a P2PKH scriptSig.
func stackOf(t testing.TB, in *wire.TxIn) (sig, pub []byte, witness bool) {
	t.Helper()
	if len(in.Witness) == 2 {
		return in.Witness[0], in.Witness[1], true
	}
	st, ok := pushStack(in.SignatureScript)
	if !ok || len(st) != 2 {
		t.Fatalf("unexpected scriptSig %x", in.SignatureScript)
	}
	return st[0], st[1], false
}

// rebuild puts sig and pub back into input i's form (witness, or scriptSig
// of two canonical pushes), keeping a P2SH-P2WPKH input's redeem push.
func rebuild(in *wire.TxIn, witness bool, sig, pub []byte) ([]byte, wire.TxWitness) {
	if witness {
		return in.SignatureScript, wire.TxWitness{sig, pub}
	}
	return pushAll([][]byte{sig, pub}), nil
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestFastAcceptMatchesEngine checks fastAccept against btcd's engine for
// every hash type: each input as signed is accepted by both (so the fast
// path is taken), and no altered form (every byte of the signature and key
// flipped, every hash-type byte, high S, truncated and extended
// signatures, other keys, other inputs' signatures, items added, dropped,
// swapped or pushed differently, scriptSigs and witnesses where the
// template has none, a redeemScript pushed otherwise) is accepted unless
// the engine accepts it too.
func TestFastAcceptMatchesEngine(t *testing.T) {
	hts := []txscript.SigHashType{SigHashDefault, txscript.SigHashAll, txscript.SigHashNone,
		txscript.SigHashSingle, txscript.SigHashAll | txscript.SigHashAnyOneCanPay,
		txscript.SigHashNone | txscript.SigHashAnyOneCanPay, txscript.SigHashSingle | txscript.SigHashAnyOneCanPay}
	for _, ht := range hts {
		ctx, keys := fastFixture(t, ht)
		tx := ctx.tx
		var sigs [][]byte
		for i := range 5 {
			if ctx.single && i >= len(tx.TxOut) {
				continue
			}
			sig, _, _ := stackOf(t, tx.TxIn[i])
			sigs = append(sigs, sig)
		}
		accepted := 0
		for i, in := range tx.TxIn {
			if len(in.SignatureScript) == 0 && len(in.Witness) == 0 {
				// Unsigned (no key, or SINGLE without its output): the
				// engine refuses, and so must the fast check.
				checkFast(t, ctx, i, nil, nil, "unsigned")
				checkFast(t, ctx, i, nil, wire.TxWitness{sigs[0], keys[0].PubKey()}, "another's signature")
				continue
			}
			if err := engineVerify(ctx, i, in.SignatureScript, in.Witness); err != nil {
				t.Fatalf("ht %v input %d: the engine refuses the signed input: %v", ht, i, err)
			}
			if !checkFast(t, ctx, i, in.SignatureScript, in.Witness, "as signed") {
				t.Fatalf("ht %v input %d: the signed input is not taken by the fast check", ht, i)
			}
			accepted++
			var cands [][2]any
			add := func(what string, ss []byte, w wire.TxWitness) { cands = append(cands, [2]any{what, [2]any{ss, w}}) }
			if isTaproot(ctx.coins[i].PkScript) {
				taprootCandidates(in, tx, add)
				checkCandidates(t, ctx, i, in, cands)
				continue
			}
			sig, pub, wit := stackOf(t, in)
			with := func(what string, sg, pb []byte) {
				ss, w := rebuild(in, wit, sg, pb)
				add(what, ss, w)
			}
			for j := range sig {
				for _, x := range []byte{0x01, 0x80, 0xff} {
					m := bytes.Clone(sig)
					m[j] ^= x
					with("signature byte flipped", m, pub)
				}
			}
			for j := range pub {
				m := bytes.Clone(pub)
				m[j] ^= 0x01
				with("key byte flipped", sig, m)
			}
			for b := range 256 {
				m := bytes.Clone(sig)
				m[len(m)-1] = byte(b)
				with("hash type", m, pub)
			}
			with("high S", append(highS(t, sig[:len(sig)-1]), sig[len(sig)-1]), pub)
			with("truncated", sig[:len(sig)-1], pub)
			with("extended", cat(sig[:len(sig)-1], []byte{0}, sig[len(sig)-1:]), pub)
			with("empty signature", nil, pub)
			for _, k := range keys {
				with("other key", sig, k.PubKey())
			}
			for _, o := range sigs {
				with("other signature", o, pub)
			}
			if wit {
				add("three items", in.SignatureScript, wire.TxWitness{sig, pub, pub})
				add("item before", in.SignatureScript, wire.TxWitness{{}, sig, pub})
				add("one item", in.SignatureScript, wire.TxWitness{sig})
				add("swapped", in.SignatureScript, wire.TxWitness{pub, sig})
				add("no witness", in.SignatureScript, nil)
				if len(in.SignatureScript) == 0 {
					add("scriptSig", []byte{0x00}, in.Witness)
					add("scriptSig push", []byte{0x01, 0x01}, in.Witness)
				} else {
					rs := in.SignatureScript[1:]
					add("redeem by PUSHDATA1", cat([]byte{0x4c, byte(len(rs))}, rs), in.Witness)
					add("redeem and more", cat(in.SignatureScript, []byte{0x51}), in.Witness)
					add("push before redeem", cat([]byte{0x00}, in.SignatureScript), in.Witness)
					add("no redeem", nil, in.Witness)
					for j := range rs {
						m := bytes.Clone(in.SignatureScript)
						m[1+j] ^= 0x01
						add("redeem byte flipped", m, in.Witness)
					}
				}
			} else {
				ss := in.SignatureScript
				add("signature by PUSHDATA1", cat([]byte{0x4c, byte(len(sig))}, sig, ss[1+len(sig):]), nil)
				add("key by PUSHDATA1", cat(ss[:1+len(sig)], []byte{0x4c, byte(len(pub))}, pub), nil)
				add("extra push", cat([]byte{0x00}, ss), nil)
				add("extra op", cat(ss, []byte{0x61}), nil)
				add("extra one", cat(ss, []byte{0x51}), nil)
				add("truncated script", ss[:len(ss)-1], nil)
				add("swapped", pushAll([][]byte{pub, sig}), nil)
				add("witness", ss, wire.TxWitness{sig, pub})
				add("key only", pushAll([][]byte{pub}), nil)
			}
			// Random byte changes over the whole input.
			rng := rand.New(rand.NewPCG(uint64(ht), uint64(i)))
			for range 300 {
				ss := bytes.Clone(in.SignatureScript)
				w := wire.TxWitness{}
				for _, it := range in.Witness {
					w = append(w, bytes.Clone(it))
				}
				for range 1 + rng.IntN(3) {
					switch {
					case len(w) > 0 && (len(ss) == 0 || rng.IntN(2) == 0):
						it := w[rng.IntN(len(w))]
						it[rng.IntN(len(it))] = byte(rng.Uint32())
					case len(ss) > 0:
						ss[rng.IntN(len(ss))] = byte(rng.Uint32())
					}
				}
				add("random bytes", ss, w)
			}
			checkCandidates(t, ctx, i, in, cands)
		}
		if accepted == 0 {
			t.Fatalf("ht %v: nothing signed", ht)
		}
	}
}

// checkCandidates runs checkFast over the candidates (what, [scriptSig,
// witness]) for input i, signed as in; only the input as signed may be
// taken by the fast check.
func checkCandidates(t *testing.T, ctx *txContext, i int, in *wire.TxIn, cands [][2]any) {
	t.Helper()
	for _, c := range cands {
		pair := c[1].([2]any)
		ss, _ := pair[0].([]byte)
		w, _ := pair[1].(wire.TxWitness)
		what := c[0].(string)
		fast := checkFast(t, ctx, i, ss, w, what)
		if fast && !(bytes.Equal(ss, in.SignatureScript) && witnessEqual(w, in.Witness)) {
			// Only the input as signed is in the cache: any other form
			// the engine accepts is still left to it.
			t.Fatalf("ht %v input %d, %s: a changed input was taken by the fast check", ctx.hashType, i, what)
		}
	}
}

// taprootCandidates adds the altered forms of a signed taproot key-path
// input: every signature byte flipped, every hash-type byte (and none),
// truncated and extended signatures, the other taproot inputs'
// signatures, an annex, a second item, a scriptSig, random changes.
func taprootCandidates(in *wire.TxIn, tx *wire.MsgTx, add func(string, []byte, wire.TxWitness)) {
	sig := in.Witness[0]
	for j := range sig {
		for _, x := range []byte{0x01, 0x80} {
			m := bytes.Clone(sig)
			m[j] ^= x
			add("signature byte flipped", nil, wire.TxWitness{m})
		}
	}
	for b := range 256 {
		add("hash type", nil, wire.TxWitness{append(bytes.Clone(sig[:64]), byte(b))})
	}
	add("no hash type", nil, wire.TxWitness{sig[:64]})
	add("truncated", nil, wire.TxWitness{sig[:len(sig)-1]})
	add("extended", nil, wire.TxWitness{append(bytes.Clone(sig), 0x01, 0x01)})
	for _, o := range tx.TxIn {
		if len(o.Witness) == 1 {
			add("other signature", nil, wire.TxWitness{o.Witness[0]})
		}
	}
	add("annex", nil, wire.TxWitness{sig, {0x50}})
	add("annex-like single item", nil, wire.TxWitness{append([]byte{0x50}, sig[1:]...)})
	add("two items", nil, wire.TxWitness{sig, sig})
	add("item before", nil, wire.TxWitness{{}, sig})
	add("no witness", nil, nil)
	add("scriptSig", []byte{0x00}, in.Witness)
	rng := rand.New(rand.NewPCG(uint64(len(sig)), uint64(sig[0])))
	for range 300 {
		m := bytes.Clone(sig)
		for range 1 + rng.IntN(3) {
			m[rng.IntN(len(m))] = byte(rng.Uint32())
		}
		add("random bytes", nil, wire.TxWitness{m})
	}
}

func witnessEqual(a, b wire.TxWitness) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestFastAcceptSameResults signs the same transactions with and without
// the fast check, for every hash type, fully, partly (some keys missing,
// an amount unknown) and over inputs that already hold data: the
// transactions and the per-input errors are identical.
func TestFastAcceptSameResults(t *testing.T) {
	for _, ht := range []txscript.SigHashType{SigHashDefault, txscript.SigHashNone,
		txscript.SigHashSingle | txscript.SigHashAnyOneCanPay} {
		base, keys := fastFixture(t, ht)
		signed := base.tx
		variants := map[string]func(tx *wire.MsgTx, coins map[wire.OutPoint]*Coin) *Provider{
			"all keys": func(*wire.MsgTx, map[wire.OutPoint]*Coin) *Provider { return base.provider },
			"some keys": func(*wire.MsgTx, map[wire.OutPoint]*Coin) *Provider {
				return NewProvider(keys[0], keys[4])
			},
			"presigned": func(tx *wire.MsgTx, _ map[wire.OutPoint]*Coin) *Provider {
				for i, in := range tx.TxIn {
					in.SignatureScript = bytes.Clone(signed.TxIn[i].SignatureScript)
					in.Witness = signed.TxIn[i].Witness
				}
				tx.TxIn[0].Witness = wire.TxWitness{{0x30}, keys[0].PubKey()}
				return base.provider
			},
			"unknown amount": func(tx *wire.MsgTx, coins map[wire.OutPoint]*Coin) *Provider {
				c := *coins[tx.TxIn[1].PreviousOutPoint]
				c.Amount = MaxMoney
				coins[tx.TxIn[1].PreviousOutPoint] = &c
				return base.provider
			},
		}
		for name, prep := range variants {
			var out [2]string
			var errs [2][]InputError
			for mode := range 2 {
				tx := base.tx.Copy()
				for _, in := range tx.TxIn {
					in.SignatureScript, in.Witness = nil, nil
				}
				coins := base.coinMap()
				p := prep(tx, coins)
				ctx := newTxContext(tx, coins, p, ht)
				ctx.noFastVerify = mode == 1
				e, err := ctx.run()
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				_ = tx.Serialize(&buf)
				out[mode], errs[mode] = buf.String(), e
			}
			if out[0] != out[1] {
				t.Fatalf("ht %v %s: transactions differ with the fast check", ht, name)
			}
			if len(errs[0]) != len(errs[1]) {
				t.Fatalf("ht %v %s: errors %v, engine only %v", ht, name, errs[0], errs[1])
			}
			for i := range errs[0] {
				if errs[0][i] != errs[1][i] {
					t.Fatalf("ht %v %s: errors %v, engine only %v", ht, name, errs[0], errs[1])
				}
			}
		}
	}
}

// FuzzFastAccept gives fastAccept arbitrary scriptSigs and witnesses for
// the fixture's inputs (the seeds are the inputs as signed): whatever it
// accepts, the engine must accept too.
func FuzzFastAccept(f *testing.F) {
	ctx, _ := fastFixture(f, SigHashDefault)
	for i, in := range ctx.tx.TxIn {
		var w0, w1 []byte
		if len(in.Witness) > 0 {
			w0 = in.Witness[0]
		}
		if len(in.Witness) > 1 {
			w1 = in.Witness[1]
		}
		f.Add(uint8(i), in.SignatureScript, w0, w1, uint8(len(in.Witness)))
	}
	f.Add(uint8(1), []byte{0x4c, 0x01, 0x00}, []byte(nil), []byte(nil), uint8(0))
	f.Fuzz(func(t *testing.T, which uint8, scriptSig, w0, w1 []byte, items uint8) {
		i := int(which) % len(ctx.tx.TxIn)
		var w wire.TxWitness
		for j := range int(items % 4) {
			if j%2 == 0 {
				w = append(w, w0)
			} else {
				w = append(w, w1)
			}
		}
		checkFast(t, ctx, i, scriptSig, w, "fuzzed")
	})
}
