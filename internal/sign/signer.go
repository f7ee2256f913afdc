package sign

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/safego"
	"github.com/descwallet/descwallet/internal/script"
)

// MaxMoney is 21 million BTC in satoshis. As in Core it doubles as the
// amount of a previous output whose amount was not given.
const MaxMoney = 21_000_000 * 100_000_000

// SigHashDefault is BIP 341's SIGHASH_DEFAULT (0): it signs taproot inputs
// with 64-byte signatures and ECDSA inputs as SIGHASH_ALL.
const SigHashDefault = txscript.SigHashDefault

// parallelThreshold is the input count above which inputs are signed and
// verified by several goroutines.
const parallelThreshold = 16

// Coin is a previous output being spent: its script and amount in
// satoshis (MaxMoney when the amount is unknown).
type Coin struct {
	PkScript []byte
	Amount   int64
}

// InputError is the problem left on one input after signing, with Core's
// text.
type InputError struct {
	// Index is the input's position in the transaction.
	Index int
	// Message is Core's text for the problem.
	Message string
}

// Messages of the per-input errors that are not script errors.
const (
	MsgInputNotFound     = "Input not found or already spent"
	MsgInvalidStackSize  = "Unable to sign input, invalid stack size (possibly missing key)"
	MsgNeedMoreSignature = "CHECK(MULTI)SIG failing with non-zero signature (possibly need more signatures)"
)

// SignTransaction signs every input of tx that the provider's keys and
// scripts can sign, the way Core's SignTransaction does, and writes the new
// scriptSigs and witnesses into tx.
//
// coins gives the previous outputs; an input whose outpoint is missing gets
// MsgInputNotFound and is left as it was. Existing signatures are kept when
// they are valid and reused (partial multisig across calls); an input that
// already verifies is not touched. hashType is SigHashDefault or one of the
// six standard types. With SINGLE, inputs without a matching output are not
// signed. Taproot inputs are signed only when every input's previous output
// is known. After signing, each incomplete input is verified under the
// standard script flags and its error is reported with Core's text.
//
// The only whole-call failure is ErrMissingAmount: an input that ends with a
// witness while its amount is unknown.
func SignTransaction(tx *wire.MsgTx, coins map[wire.OutPoint]*Coin,
	p *Provider, hashType txscript.SigHashType) ([]InputError, error) {

	return newTxContext(tx, coins, p, hashType).run()
}

// SignTransactionContext is SignTransaction for a caller that may give
// up (a client that hung up, a node shutting down): once ctx ends, no
// further input is signed and the call returns ctx's error, leaving tx as
// it was.
func SignTransactionContext(c context.Context, tx *wire.MsgTx, coins map[wire.OutPoint]*Coin,
	p *Provider, hashType txscript.SigHashType) ([]InputError, error) {

	t := newTxContext(tx, coins, p, hashType)
	t.done = c
	return t.run()
}

// run signs and verifies every input and writes the results into the
// transaction (SignTransaction). The inputs go in chunks, on several
// goroutines when there are many: each chunk's single-key inputs are
// signed first as one batch (presign), then every input of the chunk runs
// Core's steps, which find those signatures made.
func (ctx *txContext) run() ([]InputError, error) {
	tx := ctx.tx
	n := len(tx.TxIn)
	results := make([]inputResult, n)
	if err := ctx.inChunks(nil, func(i int, view *wire.MsgTx) {
		results[i] = ctx.signInput(i, view)
	}); err != nil {
		return nil, err
	}
	if ctx.done != nil && ctx.done.Err() != nil {
		return nil, ctx.done.Err()
	}

	// Core raises a missing amount as an exception while turning the
	// errors into JSON, in input order: any such input fails the call.
	for i, r := range results {
		if r.missingAmount {
			return nil, missingAmountError(ctx.coins[i])
		}
	}

	var errs []InputError
	for i, r := range results {
		if r.touched {
			tx.TxIn[i].SignatureScript = r.scriptSig
			tx.TxIn[i].Witness = r.witness
		}
		if r.err != "" {
			errs = append(errs, InputError{Index: i, Message: r.err})
		}
	}
	return errs, nil
}

// inChunks runs sign(i, view) for every input i, in chunks of inputs
// (on several goroutines when there are many), each chunk's single-key
// inputs signed first as one batch (presign) unless skip(i) says the input
// is not to be signed ahead; view is the worker's own view of the
// transaction (newView). Once the caller's context ends, no further input
// is signed.
func (ctx *txContext) inChunks(skip func(int) bool, sign func(i int, view *wire.MsgTx)) error {
	n := len(ctx.tx.TxIn)
	ctx.presigned = make([]presig, n)
	chunk := n
	if n > parallelThreshold {
		chunk = max(8, (n+4*runtime.GOMAXPROCS(0)-1)/(4*runtime.GOMAXPROCS(0)))
	}
	chunks := 0
	if n > 0 {
		chunks = (n + chunk - 1) / chunk
	}
	return runWorkers(chunks, n > parallelThreshold, func() func(int) {
		view := ctx.newView()
		return func(c int) {
			lo, hi := c*chunk, min(n, (c+1)*chunk)
			if ctx.done != nil && ctx.done.Err() != nil {
				return
			}
			ctx.presign(lo, hi, skip)
			for i := lo; i < hi; i++ {
				if ctx.done != nil && ctx.done.Err() != nil {
					return
				}
				sign(i, view)
			}
		}
	})
}

// parallelFor runs f(0) .. f(n-1), on GOMAXPROCS goroutines when n is
// above parallelThreshold. A panic in f is returned as a
// *safego.PanicError.
func parallelFor(n int, f func(int)) error {
	return parallelWorkers(n, func() func(int) { return f })
}

// parallelWorkers runs the jobs 0 .. n-1: in order on the calling goroutine
// when n is at most parallelThreshold, otherwise on a bounded pool of
// GOMAXPROCS goroutines taking the next index in turn. Each worker gets its
// own job function from newWorker (for per-worker scratch state). A panic
// in a job is returned as a *safego.PanicError; the other workers stop
// taking jobs.
func parallelWorkers(n int, newWorker func() func(int)) error {
	return runWorkers(n, n > parallelThreshold, newWorker)
}

// runWorkers runs the jobs 0 .. n-1 as parallelWorkers does, on several
// goroutines when parallel is set and GOMAXPROCS allows.
func runWorkers(n int, parallel bool, newWorker func() func(int)) error {
	if !parallel || n <= 1 || runtime.GOMAXPROCS(0) == 1 {
		return safego.Run("signer", func() error {
			f := newWorker()
			for i := range n {
				f(i)
			}
			return nil
		})
	}
	workers := min(runtime.GOMAXPROCS(0), n)
	var next atomic.Int64
	var g safego.Group
	for range workers {
		g.Go("signer", func() error {
			f := newWorker()
			for !g.Failed() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return nil
				}
				f(i)
			}
			return nil
		})
	}
	return g.Wait()
}

// missingAmountError is Core's message, which prints the output as
// CTxOut::ToString does (amount with 8 decimals, first 30 hex characters of
// the script).
func missingAmountError(c *Coin) error {
	h := fmt.Sprintf("%x", c.PkScript)
	if len(h) > 30 {
		h = h[:30]
	}
	v := c.Amount
	sign := ""
	if v < 0 {
		sign = "-"
		v = -v
	}
	return newError(ErrMissingAmount, fmt.Sprintf(
		"Missing amount for CTxOut(nValue=%s%d.%08d, scriptPubKey=%s)",
		sign, v/100_000_000, v%100_000_000, h))
}

// txContext is what every input's signer shares: the transaction as given
// (read only while signing), the coins by input, the sighash midstates built
// once, the provider, and the call's signature cache of signatures verified
// with their public keys (see seedVerified).
type txContext struct {
	done      context.Context // nil, or the caller's context (SignTransactionContext)
	tx        *wire.MsgTx
	coins     []*Coin
	allKnown  bool
	fetcher   *txscript.MultiPrevOutFetcher
	sigHashes *txscript.TxSigHashes
	provider  *Provider
	hashType  txscript.SigHashType
	single    bool

	sigCache *txscript.SigCache
	// presigned holds, by input, the signature presign made for it (nil
	// outside run).
	presigned []presig
	// verified counts the signatures made in this call that passed the
	// verification with their public key; refused those that failed it
	// and were not used.
	verified atomic.Int64
	refused  atomic.Int64

	// Test hooks, nil in use: sigHashFault replaces the hash a new
	// signature is made over; faults corrupt the nonce point or the
	// signature while it is made (before its verification).
	sigHashFault func([]byte) []byte
	faults       *faults
	// noFastVerify sends every input to the script engine (fastAccept
	// off), and noPresign signs every input alone (presign off), for tests
	// that compare the two ways.
	noFastVerify bool
	noPresign    bool
}

func newTxContext(tx *wire.MsgTx, coins map[wire.OutPoint]*Coin,
	p *Provider, hashType txscript.SigHashType) *txContext {

	ctx := &txContext{
		tx:       tx,
		coins:    make([]*Coin, len(tx.TxIn)),
		allKnown: true,
		fetcher:  txscript.NewMultiPrevOutFetcher(nil),
		provider: p,
		hashType: hashType,
		single:   hashType&^txscript.SigHashAnyOneCanPay == txscript.SigHashSingle,
		// One entry per signature made and verified here (entries are
		// keyed by the signature hash, so signatures of one hash share an
		// entry); the engine also adds the existing signatures it
		// verifies in full.
		sigCache: txscript.NewSigCache(uint(2*len(tx.TxIn) + 8)),
	}
	for i, in := range tx.TxIn {
		c := coins[in.PreviousOutPoint]
		ctx.coins[i] = c
		if c == nil {
			// Unknown outputs only stand in for the midstate computation;
			// taproot, which commits to every spent output, is then off.
			ctx.allKnown = false
			ctx.fetcher.AddPrevOut(in.PreviousOutPoint, &wire.TxOut{})
			continue
		}
		ctx.fetcher.AddPrevOut(in.PreviousOutPoint,
			&wire.TxOut{Value: c.Amount, PkScript: c.PkScript})
	}
	ctx.sigHashes = txscript.NewTxSigHashes(tx, ctx.fetcher)
	return ctx
}

// newView returns a shallow copy of the transaction with its own input
// slice: a signer puts its candidate input in its slot to compute hashes and
// run the script engine, without touching the shared transaction.
func (ctx *txContext) newView() *wire.MsgTx {
	v := *ctx.tx
	v.TxIn = append([]*wire.TxIn(nil), ctx.tx.TxIn...)
	return &v
}

// presig is a signature made ahead for one input (presign): for the key
// with key id id over hash; der is nil when its verification refused it.
type presig struct {
	made bool
	id   [20]byte
	hash []byte
	der  []byte
}

// presign signs ahead, as one batch (signECDSABatch), the inputs in
// [lo, hi) whose signature is certain before Core's steps run: an empty
// P2WPKH input whose compressed key, or an empty P2PKH input whose key,
// the provider holds. createSig takes such a signature when it needs one
// by that key over that very hash, which it does for these inputs;
// anything else is signed there as before. The signatures are the ones
// createSig would make (the same deterministic computation), each
// verified with its public key before it is recorded. Inputs for which
// skip (if not nil) is true are left out: the PSBT signer leaves out
// those whose signature it will not make.
func (ctx *txContext) presign(lo, hi int, skip func(int) bool) {
	if ctx.noPresign {
		return
	}
	ht := ctx.hashType
	if ht == SigHashDefault {
		ht = txscript.SigHashAll
	}
	var jobs []ecdsaJob
	var idx []int
	var ids [][20]byte
	for i := lo; i < hi; i++ {
		coin, in := ctx.coins[i], ctx.tx.TxIn[i]
		if coin == nil || len(in.SignatureScript) != 0 || len(in.Witness) != 0 ||
			(ctx.single && i >= len(ctx.tx.TxOut)) || (skip != nil && skip(i)) {
			continue
		}
		pk := coin.PkScript
		var id [20]byte
		var hash []byte
		var err error
		var k *Key
		switch class, sol := script.Solve(pk); class {
		case script.WitnessV0KeyHash:
			copy(id[:], sol[0])
			if k = ctx.provider.keyByID(id); k == nil || !k.compressed {
				continue
			}
			hash, err = txscript.CalcWitnessSigHash(script.PayToPubKeyHash(id[:]), ctx.sigHashes, ht,
				ctx.tx, i, coin.Amount)
		case script.PubKeyHash:
			copy(id[:], sol[0])
			if k = ctx.provider.keyByID(id); k == nil {
				continue
			}
			hash, err = txscript.CalcSignatureHash(pk, ht, ctx.tx, i)
		default:
			continue
		}
		if err != nil {
			continue
		}
		if ctx.sigHashFault != nil {
			hash = ctx.sigHashFault(hash)
		}
		jobs = append(jobs, ecdsaJob{d: &k.priv.Key, pub: k.pub, hash: hash})
		idx = append(idx, i)
		ids = append(ids, id)
	}
	if len(jobs) == 0 {
		return
	}
	signECDSABatch(jobs, ctx.faults)
	for j, i := range idx {
		ctx.presigned[i] = presig{made: true, id: ids[j], hash: jobs[j].hash, der: jobs[j].der}
	}
}

// inputResult is the outcome for one input.
type inputResult struct {
	touched       bool
	scriptSig     []byte
	witness       wire.TxWitness
	err           string
	missingAmount bool
}

// signInput runs Core's per-input steps: extract what the input has,
// produce a signature, then verify.
func (ctx *txContext) signInput(i int, view *wire.MsgTx) inputResult {
	coin := ctx.coins[i]
	if coin == nil {
		return inputResult{err: MsgInputNotFound}
	}
	in := ctx.tx.TxIn[i]
	defer func() { view.TxIn[i] = in }()

	s := &inputSigner{
		ctx:  ctx,
		idx:  i,
		view: view,
		coin: coin,
		sigs: make(map[[20]byte]sigPair),
	}
	s.extract(in.SignatureScript, in.Witness)
	if !ctx.single || i < len(ctx.tx.TxOut) {
		s.produce()
	}
	res := inputResult{touched: true, scriptSig: s.scriptSig, witness: s.witness}

	if coin.Amount == MaxMoney && len(s.witness) != 0 {
		res.missingAmount = true
		return res
	}
	if !s.complete {
		err := s.verifyErr
		if !s.verified {
			err = s.verify(s.scriptSig, s.witness)
		}
		if err != nil {
			res.err = coreScriptError(err)
		}
	}
	return res
}

// sigPair is an ECDSA signature (with its hash-type byte) and the public key
// it is for.
type sigPair struct {
	pub []byte
	sig []byte
}

// sigVersion is the signature scheme of a script being signed.
type sigVersion int

const (
	sigBase sigVersion = iota
	sigWitnessV0
)

// inputSigner holds Core's SignatureData for one input: the scriptSig and
// witness built so far, the valid signatures found or made, and the
// redeemScript and witnessScript found in the input.
type inputSigner struct {
	ctx  *txContext
	idx  int
	view *wire.MsgTx
	coin *Coin

	scriptSig     []byte
	witness       wire.TxWitness
	sigs          map[[20]byte]sigPair
	redeemScript  []byte
	witnessScript []byte
	complete      bool

	verified  bool
	verifyErr error
}

// extract is Core's DataFromTransaction: an input that already verifies is
// complete; otherwise its valid signatures and scripts are remembered.
func (s *inputSigner) extract(scriptSig []byte, witness wire.TxWitness) {
	s.scriptSig = scriptSig
	s.witness = witness
	pk := s.coin.PkScript

	// Core checks existing data without the transaction-wide precomputed
	// data, so a taproot signature never verifies at this stage. An empty
	// input of a template that needs a signature or a script cannot
	// verify, and has nothing to extract: the engine is not run for it.
	if len(scriptSig) == 0 && len(witness) == 0 && needsData(pk) {
		return
	}
	if !isTaproot(pk) && s.verify(scriptSig, witness) == nil {
		s.complete = true
		return
	}

	stack, ok := pushStack(scriptSig)
	if !ok {
		stack = nil
	}
	wit := append([][]byte(nil), witness...)

	class, sol := script.Solve(pk)
	next := pk
	sv := sigBase
	if class == script.ScriptHash && len(stack) > 0 && len(stack[len(stack)-1]) > 0 {
		s.redeemScript = stack[len(stack)-1]
		next = s.redeemScript
		class, sol = script.Solve(next)
		stack = stack[:len(stack)-1]
	}
	if class == script.WitnessV0ScriptHash && len(wit) > 0 && len(wit[len(wit)-1]) > 0 {
		s.witnessScript = wit[len(wit)-1]
		next = s.witnessScript
		class, sol = script.Solve(next)
		stack = wit[:len(wit)-1]
		sv = sigWitnessV0
	}
	if class != script.Multisig || len(stack) == 0 {
		return
	}
	keys := sol[1 : len(sol)-1]
	m := int(sol[0][0])

	// Core's verification attempt records each signature its
	// CHECKMULTISIG accepted: signatures are matched to keys in order.
	if len(stack) >= m+1 {
		sigs := stack[len(stack)-m:]
		isig, ikey := 0, 0
		for isig < len(sigs) && len(sigs)-isig <= len(keys)-ikey {
			if s.checkECDSA(sigs[isig], keys[ikey], next, sv) {
				s.sigs[script.Hash160(keys[ikey])] = sigPair{pub: keys[ikey], sig: sigs[isig]}
				isig++
			}
			ikey++
		}
	}

	// Then each stack item is matched against the keys after the last
	// match; a key that already has a signature counts as a match.
	last := 0
	for _, sig := range stack {
		for k := last; k < len(keys); k++ {
			id := script.Hash160(keys[k])
			if _, have := s.sigs[id]; have {
				last = k + 1
				break
			}
			if s.checkECDSA(sig, keys[k], next, sv) {
				s.sigs[id] = sigPair{pub: keys[k], sig: sig}
				last = k + 1
				break
			}
		}
	}
}

// produce is Core's ProduceSignature.
func (s *inputSigner) produce() {
	if s.complete {
		return
	}
	pk := s.coin.PkScript
	result, class, solved := s.signStep(pk, sigBase)

	p2sh := false
	var subscript []byte
	if solved && class == script.ScriptHash {
		subscript = result[0]
		var ok bool
		result, class, ok = s.signStep(subscript, sigBase)
		solved = ok && class != script.ScriptHash
		p2sh = true
	}

	var witness wire.TxWitness
	isWitness := false
	switch {
	case solved && class == script.WitnessV0KeyHash:
		var ok bool
		result, _, ok = s.signStep(script.PayToPubKeyHash(result[0]), sigWitnessV0)
		solved = ok
		witness = result
		isWitness = true
		result = nil

	case solved && class == script.WitnessV0ScriptHash:
		ws := result[0]
		res, sub, ok := s.signStep(ws, sigWitnessV0)
		solved = ok && sub != script.ScriptHash &&
			sub != script.WitnessV0ScriptHash && sub != script.WitnessV0KeyHash
		// Core then tries the script as a miniscript, unless the
		// templates produced partial data (a partial multisig).
		if !solved && len(res) == 0 {
			res, solved = s.satisfyMiniscript(ws)
		}
		witness = append(res, ws)
		isWitness = true
		result = nil

	case class == script.WitnessV1Taproot && !p2sh:
		isWitness = true
		witness = s.witness
		if solved {
			witness = result
		}
		result = nil

	case solved && class == script.WitnessUnknown:
		isWitness = true
		witness = s.witness
	}
	if !isWitness {
		witness = nil
	}
	if p2sh {
		result = append(result, subscript)
	}
	s.scriptSig = pushAll(result)
	s.witness = witness

	if solved {
		s.verified = true
		s.verifyErr = s.verify(s.scriptSig, s.witness)
		s.complete = s.verifyErr == nil
	}
}

// stepSigner is what signStep asks of a signer: signatures, and the keys
// and scripts the solved template names. The raw transaction signer and
// the PSBT signer each answer from their own data; the PSBT signer also
// notes what it lacks, for analyzepsbt's missing fields.
type stepSigner interface {
	// createSig returns a signature of the key pub over scriptCode.
	createSig(pub, scriptCode []byte, sv sigVersion) ([]byte, bool)
	// stepPubKey returns the public key whose HASH160 is id (P2PKH).
	stepPubKey(id [20]byte) ([]byte, bool)
	// stepRedeemScript returns the script whose HASH160 is id (P2SH).
	stepRedeemScript(id [20]byte) ([]byte, bool)
	// stepWitnessScript returns the script whose SHA256 is hash (P2WSH).
	stepWitnessScript(hash []byte) ([]byte, bool)
	// stepTaproot signs for the 32-byte taproot output key.
	stepTaproot(outputKey []byte) ([][]byte, bool)
}

// signStep is Core's SignStep: it solves one script and returns the stack
// items that satisfy it (or the script to recurse into for P2SH and
// P2WSH), its class, and whether it is solved.
func signStep(s stepSigner, scr []byte, sv sigVersion) ([][]byte, script.Class, bool) {
	class, sol := script.Solve(scr)
	switch class {
	case script.PubKey:
		sig, ok := s.createSig(sol[0], scr, sv)
		if !ok {
			return nil, class, false
		}
		return [][]byte{sig}, class, true

	case script.PubKeyHash:
		pub, ok := s.stepPubKey([20]byte(sol[0]))
		if !ok {
			return nil, class, false
		}
		sig, ok := s.createSig(pub, scr, sv)
		if !ok {
			return nil, class, false
		}
		return [][]byte{sig, pub}, class, true

	case script.ScriptHash:
		if rs, ok := s.stepRedeemScript([20]byte(sol[0])); ok {
			return [][]byte{rs}, class, true
		}
		return nil, class, false

	case script.Multisig:
		required := int(sol[0][0])
		ret := [][]byte{{}}
		for _, pub := range sol[1 : len(sol)-1] {
			// Every key is tried so that every signature that can be
			// made is made, as Core does.
			if sig, ok := s.createSig(pub, scr, sv); ok && len(ret) < required+1 {
				ret = append(ret, sig)
			}
		}
		ok := len(ret) == required+1
		// Core's fill loop: it stops halfway through the missing ones.
		for i := 0; i+len(ret) < required+1; i++ {
			ret = append(ret, []byte{})
		}
		return ret, class, ok

	case script.WitnessV0KeyHash:
		return [][]byte{sol[0]}, class, true

	case script.WitnessV0ScriptHash:
		if ws, ok := s.stepWitnessScript(sol[0]); ok {
			return [][]byte{ws}, class, true
		}
		return nil, class, false

	case script.WitnessV1Taproot:
		ret, ok := s.stepTaproot(sol[0])
		return ret, class, ok

	case script.Anchor:
		return nil, class, true
	}
	return nil, class, false
}

// signStep is Core's SignStep over the transaction signer's data.
func (s *inputSigner) signStep(scr []byte, sv sigVersion) ([][]byte, script.Class, bool) {
	return signStep(s, scr, sv)
}

func (s *inputSigner) stepPubKey(id [20]byte) ([]byte, bool)       { return s.pubKey(id) }
func (s *inputSigner) stepRedeemScript(id [20]byte) ([]byte, bool) { return s.script(id) }
func (s *inputSigner) stepWitnessScript(hash []byte) ([]byte, bool) {
	return s.script(script.RIPEMD160(hash))
}
func (s *inputSigner) stepTaproot(outputKey []byte) ([][]byte, bool) { return s.signTaproot(outputKey) }

// pubKey finds the public key with key id id among the signatures found
// and the provider's keys.
func (s *inputSigner) pubKey(id [20]byte) ([]byte, bool) {
	if sp, ok := s.sigs[id]; ok {
		return sp.pub, true
	}
	if k := s.ctx.provider.keyByID(id); k != nil {
		return k.pubBytes, true
	}
	return s.ctx.provider.pubKeyByID(id)
}

// script finds a script by HASH160 in the provider, then among the
// redeemScript and witnessScript found in the input.
func (s *inputSigner) script(id [20]byte) ([]byte, bool) {
	if scr, ok := s.ctx.provider.Script(id); ok {
		return scr, true
	}
	if s.redeemScript != nil && script.Hash160(s.redeemScript) == id {
		return s.redeemScript, true
	}
	if s.witnessScript != nil && script.Hash160(s.witnessScript) == id {
		return s.witnessScript, true
	}
	return nil, false
}

// createSig is Core's CreateSig: an existing valid signature for the key is
// reused, otherwise the provider's key signs. Witness v0 scripts refuse
// uncompressed keys.
func (s *inputSigner) createSig(pub, scriptCode []byte, sv sigVersion) ([]byte, bool) {
	id := script.Hash160(pub)
	if sp, ok := s.sigs[id]; ok {
		return sp.sig, true
	}
	k := s.ctx.provider.keyByID(id)
	if k == nil {
		return nil, false
	}
	if sv == sigWitnessV0 && !k.compressed {
		return nil, false
	}
	ht := s.ctx.hashType
	if ht == SigHashDefault {
		ht = txscript.SigHashAll
	}
	hash, err := s.sigHash(scriptCode, ht, sv)
	if err != nil {
		return nil, false
	}
	if s.ctx.sigHashFault != nil {
		hash = s.ctx.sigHashFault(hash)
	}
	var der []byte
	var ok bool
	if p := s.presig(id, hash); p != nil {
		der, ok = p.der, p.der != nil
	} else {
		der, ok = k.signECDSA(hash, s.ctx.faults)
	}
	if !ok {
		// The signature did not verify with the public key: it is not
		// used, and the input is left unsigned for this key, as Core's
		// CreateSig does when CKey::Sign fails.
		s.ctx.refused.Add(1)
		return nil, false
	}
	s.ctx.verified.Add(1)
	if bytes.Equal(pub, k.pubBytes) {
		s.ctx.seedVerified(hash, der, pub)
	}
	sig := append(der[:len(der):len(der)], byte(ht))
	s.sigs[id] = sigPair{pub: pub, sig: sig}
	return sig, true
}

// presig returns the signature presign made for this input by the key
// with key id id over hash, or nil.
func (s *inputSigner) presig(id [20]byte, hash []byte) *presig {
	if s.idx >= len(s.ctx.presigned) {
		return nil
	}
	p := &s.ctx.presigned[s.idx]
	if !p.made || p.id != id || !bytes.Equal(p.hash, hash) {
		return nil
	}
	return p
}

// seedVerified records a signature made in this call, and verified with
// its public key (see verifyECDSA, verifySchnorr), in the call's signature
// cache:
// sig is what the script engine looks up (DER without the hash-type byte
// for ECDSA, the whole 64 or 65 bytes for Schnorr), pub the key as the
// script holds it, hash the signature hash it was verified against.
//
// Core verifies each signature it makes against its public key and then
// runs the script interpreter, which verifies it once more. Here the
// second verification is the first one, looked up: the script engine runs
// every input under the standard flags as before, checks every script
// rule and the encodings of the signatures and keys, and computes the
// signature hash itself; it takes a signature from the cache only when its
// own hash, the signature bytes and the key bytes all match an entry, which
// is exactly what was verified. A signature made over a wrong hash, for
// another key, or altered after its verification misses the cache and is
// verified in full, and fails. Signatures that were already in the input
// are never seeded: the engine verifies them in full.
func (ctx *txContext) seedVerified(hash, sig, pub []byte) {
	var h chainhash.Hash
	copy(h[:], hash)
	ctx.sigCache.Add(h, sig, pub)
}

// sigHash computes the legacy or BIP 143 signature hash of this input.
func (s *inputSigner) sigHash(scriptCode []byte, ht txscript.SigHashType, sv sigVersion) ([]byte, error) {
	if sv == sigWitnessV0 {
		return txscript.CalcWitnessSigHash(scriptCode, s.ctx.sigHashes, ht,
			s.view, s.idx, s.coin.Amount)
	}
	return txscript.CalcSignatureHash(scriptCode, ht, s.view, s.idx)
}

// taprootSigHash computes the BIP 341 key-path signature hash of this
// input (no annex).
func (s *inputSigner) taprootSigHash(ht txscript.SigHashType) ([]byte, error) {
	return txscript.CalcTaprootSignatureHash(s.ctx.sigHashes, ht, s.view,
		s.idx, s.ctx.fetcher)
}

// pushAll is Core's PushAll: each item as its canonical push, small numbers
// as OP_1..OP_16 and OP_1NEGATE, the empty item as OP_0.
func pushAll(items [][]byte) []byte {
	size := 0
	for _, it := range items {
		size += len(it) + 5
	}
	out := make([]byte, 0, size)
	for _, it := range items {
		switch {
		case len(it) == 0:
			out = append(out, 0x00)
		case len(it) == 1 && it[0] >= 1 && it[0] <= 16:
			out = append(out, 0x50+it[0])
		case len(it) == 1 && it[0] == 0x81:
			out = append(out, 0x4f)
		default:
			out = script.AppendPush(out, it)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// pushStack evaluates a push-only scriptSig into its stack, as Core does
// for the scriptSig part of existing data. It fails on anything else.
func pushStack(scr []byte) ([][]byte, bool) {
	var stack [][]byte
	for pc := 0; pc < len(scr); {
		op, data, next, ok := script.NextOp(scr, pc)
		if !ok {
			return nil, false
		}
		switch {
		case op <= script.OpPushData4:
			stack = append(stack, data)
		case op == script.Op1Negate:
			stack = append(stack, []byte{0x81})
		case op >= script.Op1 && op <= script.Op16:
			stack = append(stack, []byte{op - 0x50})
		default:
			return nil, false
		}
		pc = next
	}
	return stack, true
}

// needsData reports whether pk is a P2PKH, P2SH, P2WPKH, P2WSH or taproot
// output: with an empty scriptSig and witness such an input always fails
// verification (its script, or the program check, needs stack items).
func needsData(pk []byte) bool {
	switch {
	case len(pk) == 25 && pk[0] == 0x76 && pk[1] == 0xa9 && pk[2] == 0x14 && pk[23] == 0x88 && pk[24] == 0xac:
		return true
	case len(pk) == 23 && pk[0] == 0xa9 && pk[1] == 0x14 && pk[22] == 0x87:
		return true
	case len(pk) == 22 && pk[0] == 0x00 && pk[1] == 0x14:
		return true
	case len(pk) == 34 && pk[0] == 0x00 && pk[1] == 0x20:
		return true
	}
	return isTaproot(pk)
}

func isTaproot(pk []byte) bool {
	return len(pk) == 34 && pk[0] == 0x51 && pk[1] == 0x20
}
