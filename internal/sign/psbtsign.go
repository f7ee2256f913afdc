package sign

import (
	"bytes"
	"errors"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/descriptor/miniscript"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/psbt"
)

// This file signs and finalizes PSBT inputs as Core's SignPSBTInput,
// FinalizePSBT and UpdatePSBTOutput do: the input's data is read into a
// signature-data record (Core's SignatureData: signatures, scripts, key
// origins, taproot spend data, preimages), a satisfaction is produced as
// ProduceSignature does, and what was learnt is written back.

// ErrSighashMismatch is Core's PSBTError::SIGHASH_MISMATCH: the sighash
// type asked for is not the one the input holds or its signatures use.
var ErrSighashMismatch = errors.New("Specified sighash value does not match value stored in PSBT")

// Origins holds key origins by key id (Core's FlatSigningProvider
// origins), for the BIP 32 derivation fields a signer adds.
type Origins struct {
	byID map[[20]byte]originEntry
}

type originEntry struct {
	pub    []byte
	origin psbt.KeyOrigin
}

// NewOrigins returns an empty origin table.
func NewOrigins() *Origins { return &Origins{byID: map[[20]byte]originEntry{}} }

// Add records the origin of a public key (33 or 65 bytes).
func (o *Origins) Add(pub []byte, origin psbt.KeyOrigin) {
	id := script.Hash160(pub)
	if _, ok := o.byID[id]; !ok {
		o.byID[id] = originEntry{pub: append([]byte(nil), pub...), origin: origin}
	}
}

// TapTree is a taproot output's internal key and script tree as its
// descriptor builds it: leaves depth first with their control blocks.
type TapTree struct {
	InternalKey [32]byte
	MerkleRoot  []byte
	Leaves      []TapTreeLeaf
}

// TapTreeLeaf is one leaf of a TapTree.
type TapTreeLeaf struct {
	Depth        int
	LeafVersion  byte
	Script       []byte
	ControlBlock []byte
}

// PSBTSigner signs PSBT inputs with a provider's keys and scripts, adds
// key origins from Origins (unless HideOrigins, Core's hiding provider
// without bip32derivs) and taproot trees. A zero PSBTSigner has no keys:
// it only finalizes what the PSBT already holds, as Core's FinalizePSBT.
type PSBTSigner struct {
	Provider    *Provider
	Origins     *Origins
	HideOrigins bool
	trees       map[[32]byte]*TapTree
}

// AddTapTree records the tree of the taproot output with output key
// outputKey (Core's tr_trees).
func (ps *PSBTSigner) AddTapTree(outputKey [32]byte, t TapTree) {
	if ps.trees == nil {
		ps.trees = map[[32]byte]*TapTree{}
	}
	if _, ok := ps.trees[outputKey]; !ok {
		tt := t
		ps.trees[outputKey] = &tt
	}
}

func (ps *PSBTSigner) provider() *Provider {
	if ps.Provider == nil {
		return NewProvider()
	}
	return ps.Provider
}

func (ps *PSBTSigner) keyOrigin(id [20]byte) (originEntry, bool) {
	if ps.HideOrigins || ps.Origins == nil {
		return originEntry{}, false
	}
	e, ok := ps.Origins.byID[id]
	return e, ok
}

func (ps *PSBTSigner) keyOriginByXOnly(x [32]byte) (psbt.KeyOrigin, bool) {
	for _, prefix := range []byte{2, 3} {
		if e, ok := ps.keyOrigin(script.Hash160(append([]byte{prefix}, x[:]...))); ok {
			return e.origin, true
		}
	}
	return psbt.KeyOrigin{}, false
}

// MissingData is what an input still lacks after an attempt to sign it
// (Core's SignatureData missing_* fields), for analyzepsbt.
type MissingData struct {
	PubKeys       [][20]byte
	Sigs          [][20]byte
	RedeemScript  [20]byte
	WitnessScript [32]byte
}

// psbtContext is the per-packet state: the transaction context of the
// signer (midstates when every UTXO is known) and the hash type.
type psbtContext struct {
	*txContext
	ps *PSBTSigner
	p  *psbt.Packet
	// noTxData is Core's signing without precomputed data (txdata
	// nullptr): dummy signatures, and taproot cannot be verified.
	noTxData bool
}

// newPSBTContext is Core's PrecomputePSBTData: the spent outputs are the
// inputs' UTXOs; taproot signing needs all of them.
func (ps *PSBTSigner) newPSBTContext(p *psbt.Packet, hashType txscript.SigHashType) *psbtContext {
	coins := make(map[wire.OutPoint]*Coin, len(p.Inputs))
	for i := range p.Inputs {
		if u, ok := p.UTXO(i); ok {
			coins[p.UnsignedTx.TxIn[i].PreviousOutPoint] = &Coin{PkScript: u.PkScript, Amount: u.Value}
		}
	}
	return &psbtContext{txContext: newTxContext(p.UnsignedTx, coins, ps.provider(), hashType), ps: ps, p: p}
}

// SignPSBT is Core's ProcessPSBT signing loop: every input not yet
// finalized is signed with sighash (nil: DEFAULT for taproot inputs, ALL
// for the others), finalized when complete and finalize is set; then every
// output is updated (UpdatePSBTOutput) and needless non-witness UTXOs are
// dropped (RemoveUnnecessaryTransactions). It fails with
// ErrSighashMismatch, or with a *safego.PanicError should signing an input
// panic.
//
// The inputs are signed in chunks as SignTransaction signs them: the
// single-key inputs of a chunk first as one batch, then each input through
// Core's steps, which take those signatures.
func (ps *PSBTSigner) SignPSBT(p *psbt.Packet, sighash *uint32, finalize bool) error {
	return ps.signPSBT(p, sighash, finalize, nil)
}

// signPSBT is SignPSBT; a test may look at or set the context through
// hook before anything is signed.
func (ps *PSBTSigner) signPSBT(p *psbt.Packet, sighash *uint32, finalize bool, hook func(*psbtContext)) error {
	ht := SigHashDefault
	if sighash != nil {
		ht = txscript.SigHashType(*sighash)
	}
	ctx := ps.newPSBTContext(p, ht)
	if hook != nil {
		hook(ctx)
	}
	errs := make([]error, len(p.Inputs))
	// The single-key inputs of each chunk are signed ahead as one batch,
	// as for a transaction, except those whose signature will not be made
	// here: final inputs and inputs that already hold partial signatures
	// (one of them may be the key's, which Core reuses).
	skip := func(i int) bool {
		in := &p.Inputs[i]
		return in.IsFinalized() || len(in.PartialSigs) > 0
	}
	if err := ctx.inChunks(skip, func(i int, view *wire.MsgTx) {
		if p.Inputs[i].IsFinalized() {
			return
		}
		_, _, errs[i] = ctx.signInputPSBT(i, view, sighash, finalize)
	}); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for i := range p.Outputs {
		ps.UpdateOutput(p, i)
	}
	RemoveUnnecessaryTransactions(p)
	return nil
}

// FinalizePSBT is Core's FinalizePSBT: each input is signed with no keys
// and its own sighash field, which turns complete partial data into final
// scripts. It reports whether every input is now final.
func FinalizePSBT(p *psbt.Packet) bool {
	ps := &PSBTSigner{}
	ctx := ps.newPSBTContext(p, SigHashDefault)
	view := ctx.newView()
	complete := true
	for i := range p.Inputs {
		ok, _, err := ctx.signInputPSBT(i, view, p.Inputs[i].SighashType, true)
		complete = complete && ok && err == nil
	}
	return complete
}

// FinalizeAndExtract is Core's FinalizeAndExtractPSBT: the network
// transaction when every input finalizes.
func FinalizeAndExtract(p *psbt.Packet) (*wire.MsgTx, bool) {
	if !FinalizePSBT(p) {
		return nil, false
	}
	tx := p.UnsignedTx.Copy()
	for i, in := range tx.TxIn {
		in.SignatureScript = p.Inputs[i].FinalScriptSig
		in.Witness = p.Inputs[i].FinalScriptWitness
	}
	return tx, true
}

// Analysis is what AnalyzePSBT reports per input (Core's
// PSBTInputAnalysis without the UTXO checks, which need no signer).
type Analysis struct {
	// Final: the input holds final data that verifies.
	Final bool
	// Complete: signing with no keys completes it (next is finalizer).
	Complete bool
	// Missing is what it lacks when not complete.
	Missing MissingData
}

// AnalyzeInputs runs Core's AnalyzePSBT signing passes over p, which it
// modifies (callers pass a copy): per input whether it is final, whether
// it completes without keys and what it lacks; then, when every input
// completes with dummy signatures, the transaction those give, for the
// size estimate (nil otherwise).
func AnalyzeInputs(p *psbt.Packet, estimate bool) ([]Analysis, *wire.MsgTx) {
	ps := &PSBTSigner{}
	ctx := ps.newPSBTContext(p, SigHashDefault)
	view := ctx.newView()
	out := make([]Analysis, len(p.Inputs))
	for i := range p.Inputs {
		coin := ctx.coins[i]
		if coin != nil && p.Inputs[i].IsFinalized() {
			s := &inputSigner{ctx: ctx.txContext, idx: i, view: view, coin: coin}
			if s.verify(p.Inputs[i].FinalScriptSig, p.Inputs[i].FinalScriptWitness) == nil {
				out[i].Final = true
				continue
			}
		}
		ok, missing, err := ctx.signInputPSBT(i, view, nil, true)
		out[i].Complete = ok && err == nil
		out[i].Missing = missing
	}
	if !estimate {
		return out, nil
	}
	dummy := ps.newPSBTContext(p, SigHashDefault)
	dummy.noTxData = true
	dview := dummy.newView()
	tx := p.UnsignedTx.Copy()
	for i := range p.Inputs {
		ok, _, err := dummy.signInputPSBT(i, dview, nil, true)
		if !ok || err != nil || dummy.coins[i] == nil {
			return out, nil
		}
		tx.TxIn[i].SignatureScript = p.Inputs[i].FinalScriptSig
		tx.TxIn[i].Witness = p.Inputs[i].FinalScriptWitness
	}
	return out, tx
}

// RemoveUnnecessaryTransactions is Core's: when every input is segwit v1
// without ANYONECANPAY, the non-witness UTXOs are dropped.
func RemoveUnnecessaryTransactions(p *psbt.Packet) {
	for i := range p.Inputs {
		in := &p.Inputs[i]
		if in.WitnessUTXO == nil || in.WitnessUTXO.Value == -1 {
			return
		}
		v, _, ok := script.IsWitnessProgram(in.WitnessUTXO.PkScript)
		if !ok || v == 0 {
			return
		}
		if in.SighashType != nil && *in.SighashType&0x80 == 0x80 {
			return
		}
	}
	for i := range p.Inputs {
		p.Inputs[i].NonWitnessUTXO = nil
	}
}

// psbtInput is Core's SignatureData for one PSBT input or output.
type psbtInput struct {
	*inputSigner
	pc *psbtContext
	in *psbt.Input

	witnessSig    bool
	miscPubs      map[[20]byte]originEntry
	tapKeySig     []byte
	tapScriptSigs map[psbt.TapScriptSigKey][]byte
	trInternal    [32]byte
	trRoot        [32]byte
	trScripts     map[psbt.TapLeaf]map[string]bool
	trBuilder     *TapTree
	tapMisc       map[[32]byte]psbt.TapKeyOrigin
	tapPubs       map[[20]byte][32]byte
	missing       MissingData
	// dryRun walks the scripts without signing (UpdatePSBTOutput).
	dryRun bool
}

// signInputPSBT is Core's SignPSBTInput for input i. The missing data is
// reported only when signing ran to its end, as Core fills out_sigdata.
func (pc *psbtContext) signInputPSBT(i int, view *wire.MsgTx, sighash *uint32, finalize bool) (bool, MissingData, error) {
	in := &pc.p.Inputs[i]
	coin := pc.coins[i]
	if coin != nil && in.IsFinalized() {
		s := &inputSigner{ctx: pc.txContext, idx: i, view: view, coin: coin}
		if !(pc.noTxData && isTaproot(coin.PkScript)) && s.verify(in.FinalScriptSig, in.FinalScriptWitness) == nil {
			return true, MissingData{}, nil
		}
	}
	if coin == nil {
		return false, MissingData{}, nil
	}
	requireWitness := in.NonWitnessUTXO == nil
	taproot := isTaproot(coin.PkScript)

	ht := uint32(SigHashDefault)
	if sighash != nil {
		ht = *sighash
	} else if !taproot {
		ht = uint32(txscript.SigHashAll)
	}
	if in.SighashType != nil && *in.SighashType != ht {
		return false, MissingData{}, ErrSighashMismatch
	}
	if taproot && ht != uint32(SigHashDefault) || !taproot && ht != uint32(SigHashDefault) && ht != uint32(txscript.SigHashAll) {
		v := ht
		in.SighashType = &v
	}
	if ht == uint32(SigHashDefault) {
		if len(in.TapKeySig) > 0 && len(in.TapKeySig) != 64 {
			return false, MissingData{}, ErrSighashMismatch
		}
		for _, sig := range in.TapScriptSigs {
			if len(sig) != 64 {
				return false, MissingData{}, ErrSighashMismatch
			}
		}
	} else {
		if len(in.TapKeySig) > 0 && (len(in.TapKeySig) != 65 || uint32(in.TapKeySig[64]) != ht) {
			return false, MissingData{}, ErrSighashMismatch
		}
		for _, sig := range in.TapScriptSigs {
			if len(sig) != 65 || uint32(sig[64]) != ht {
				return false, MissingData{}, ErrSighashMismatch
			}
		}
		for _, ps := range in.PartialSigs {
			if uint32(ps.Signature[len(ps.Signature)-1]) != ht {
				return false, MissingData{}, ErrSighashMismatch
			}
		}
	}

	// The context's hash type is the call's (DEFAULT when none was
	// given, which ECDSA signs as ALL): only a keyless finalization gives
	// inputs different ones, and it makes no signature.
	d := pc.newData(i, view, coin, in)
	if in.IsFinalized() {
		// Core's FillSignatureData: final data is complete as it is,
		// and no witness signature is made.
		if requireWitness {
			return false, MissingData{}, nil
		}
		if finalize {
			in.PartialSigs, in.BIP32Derivs = nil, nil
			in.RedeemScript, in.WitnessScript = nil, nil
		}
		return true, MissingData{}, nil
	}
	d.fill()
	d.produce()
	if requireWitness && !d.witnessSig {
		return false, MissingData{}, nil
	}
	complete := d.complete
	if !finalize {
		d.complete = false
	}
	d.writeInput()
	if d.witnessSig {
		in.WitnessUTXO = &wire.TxOut{Value: coin.Amount, PkScript: coin.PkScript}
	}
	return complete, d.missing, nil
}

func (pc *psbtContext) newData(i int, view *wire.MsgTx, coin *Coin, in *psbt.Input) *psbtInput {
	return &psbtInput{
		inputSigner: &inputSigner{
			ctx: pc.txContext, idx: i, view: view, coin: coin,
			sigs: make(map[[20]byte]sigPair),
		},
		pc:            pc,
		in:            in,
		miscPubs:      map[[20]byte]originEntry{},
		tapScriptSigs: map[psbt.TapScriptSigKey][]byte{},
		trScripts:     map[psbt.TapLeaf]map[string]bool{},
		tapMisc:       map[[32]byte]psbt.TapKeyOrigin{},
		tapPubs:       map[[20]byte][32]byte{},
	}
}

// fill is Core's PSBTInput::FillSignatureData.
func (d *psbtInput) fill() {
	in := d.in
	for id, ps := range in.PartialSigs {
		d.sigs[id] = sigPair{pub: ps.PubKey, sig: ps.Signature}
	}
	d.redeemScript = in.RedeemScript
	d.witnessScript = in.WitnessScript
	for pub, o := range in.BIP32Derivs {
		d.miscPubs[script.Hash160([]byte(pub))] = originEntry{pub: []byte(pub), origin: o}
	}
	d.tapKeySig = in.TapKeySig
	for k, v := range in.TapScriptSigs {
		d.tapScriptSigs[k] = v
	}
	d.trInternal = in.TapInternalKey
	d.trRoot = in.TapMerkleRoot
	for leaf, cbs := range in.TapLeafScripts {
		d.addLeaf(leaf, cbs)
	}
	for x, o := range in.TapBIP32Derivs {
		d.tapMisc[x] = o
		d.tapPubs[script.Hash160(x[:])] = x
	}
}

func (d *psbtInput) addLeaf(leaf psbt.TapLeaf, cbs map[string]bool) {
	m := d.trScripts[leaf]
	if m == nil {
		m = map[string]bool{}
		d.trScripts[leaf] = m
	}
	for cb := range cbs {
		m[cb] = true
	}
}

// writeInput is Core's PSBTInput::FromSignatureData.
func (d *psbtInput) writeInput() {
	in := d.in
	if d.complete {
		in.PartialSigs, in.BIP32Derivs = nil, nil
		in.RedeemScript, in.WitnessScript = nil, nil
		if len(d.scriptSig) > 0 {
			in.FinalScriptSig = d.scriptSig
		}
		if len(d.witness) > 0 {
			in.FinalScriptWitness = d.witness
		}
		return
	}
	for id, sp := range d.sigs {
		if in.PartialSigs == nil {
			in.PartialSigs = map[[20]byte]psbt.PartialSig{}
		}
		if _, ok := in.PartialSigs[id]; !ok {
			in.PartialSigs[id] = psbt.PartialSig{PubKey: sp.pub, Signature: sp.sig}
		}
	}
	if len(in.RedeemScript) == 0 && len(d.redeemScript) > 0 {
		in.RedeemScript = d.redeemScript
	}
	if len(in.WitnessScript) == 0 && len(d.witnessScript) > 0 {
		in.WitnessScript = d.witnessScript
	}
	for _, e := range d.miscPubs {
		if in.BIP32Derivs == nil {
			in.BIP32Derivs = map[string]psbt.KeyOrigin{}
		}
		if _, ok := in.BIP32Derivs[string(e.pub)]; !ok {
			in.BIP32Derivs[string(e.pub)] = e.origin
		}
	}
	if len(d.tapKeySig) > 0 {
		in.TapKeySig = d.tapKeySig
	}
	for k, v := range d.tapScriptSigs {
		if in.TapScriptSigs == nil {
			in.TapScriptSigs = map[psbt.TapScriptSigKey][]byte{}
		}
		if _, ok := in.TapScriptSigs[k]; !ok {
			in.TapScriptSigs[k] = v
		}
	}
	if d.trInternal != ([32]byte{}) {
		in.TapInternalKey = d.trInternal
	}
	if d.trRoot != ([32]byte{}) {
		in.TapMerkleRoot = d.trRoot
	}
	for leaf, cbs := range d.trScripts {
		if in.TapLeafScripts == nil {
			in.TapLeafScripts = map[psbt.TapLeaf]map[string]bool{}
		}
		if _, ok := in.TapLeafScripts[leaf]; !ok {
			in.TapLeafScripts[leaf] = cbs
		}
	}
	for x, o := range d.tapMisc {
		if in.TapBIP32Derivs == nil {
			in.TapBIP32Derivs = map[[32]byte]psbt.TapKeyOrigin{}
		}
		if _, ok := in.TapBIP32Derivs[x]; !ok {
			in.TapBIP32Derivs[x] = o
		}
	}
}

// produce is Core's ProduceSignature over this signature data.
func (d *psbtInput) produce() {
	pk := d.coin.PkScript
	result, class, solved := d.step(pk, sigBase)
	p2sh := false
	var subscript []byte
	if solved && class == script.ScriptHash {
		subscript = result[0]
		d.redeemScript = subscript
		var ok bool
		result, class, ok = d.step(subscript, sigBase)
		solved = ok && class != script.ScriptHash
		p2sh = true
	}
	var witness wire.TxWitness
	switch {
	case solved && class == script.WitnessV0KeyHash:
		var ok bool
		result, _, ok = d.step(script.PayToPubKeyHash(result[0]), sigWitnessV0)
		solved = ok
		witness = result
		d.witnessSig = true
		result = nil
	case solved && class == script.WitnessV0ScriptHash:
		ws := result[0]
		d.witnessScript = ws
		res, sub, ok := d.step(ws, sigWitnessV0)
		solved = ok && sub != script.ScriptHash &&
			sub != script.WitnessV0ScriptHash && sub != script.WitnessV0KeyHash
		if !solved && len(res) == 0 {
			res, solved = d.satisfyWsh(ws)
		}
		witness = append(res, ws)
		d.witnessSig = true
		result = nil
	case class == script.WitnessV1Taproot && !p2sh:
		d.witnessSig = true
		if solved {
			witness = result
		}
		result = nil
	case solved && class == script.WitnessUnknown:
		d.witnessSig = true
	}
	if !d.witnessSig {
		witness = nil
	}
	if p2sh {
		result = append(result, subscript)
	}
	d.scriptSig = pushAll(result)
	d.witness = witness
	switch {
	case d.dryRun:
		d.complete = false
	case d.pc.noTxData:
		// Core's dummy checker accepts every signature.
		d.complete = solved
	default:
		d.complete = solved && d.verify(d.scriptSig, d.witness) == nil
	}
}

// step is Core's SignStep over the signature data; what a failed step
// lacked is noted in d.missing.
func (d *psbtInput) step(scr []byte, sv sigVersion) ([][]byte, script.Class, bool) {
	return signStep(d, scr, sv)
}

func (d *psbtInput) stepPubKey(id [20]byte) ([]byte, bool) {
	pub, ok := d.getPubKey(id)
	if !ok {
		d.missing.PubKeys = append(d.missing.PubKeys, id)
	}
	return pub, ok
}

func (d *psbtInput) stepRedeemScript(id [20]byte) ([]byte, bool) {
	rs, ok := d.getScript(id)
	if !ok {
		d.missing.RedeemScript = id
	}
	return rs, ok
}

func (d *psbtInput) stepWitnessScript(hash []byte) ([]byte, bool) {
	ws, ok := d.getScript(script.RIPEMD160(hash))
	if !ok {
		copy(d.missing.WitnessScript[:], hash)
	}
	return ws, ok
}

func (d *psbtInput) stepTaproot(outputKey []byte) ([][]byte, bool) {
	return d.signTaprootPSBT([32]byte(outputKey))
}

// getScript is Core's GetCScript: the provider, then the signature data.
func (d *psbtInput) getScript(id [20]byte) ([]byte, bool) {
	if scr, ok := d.ctx.provider.Script(id); ok {
		return scr, true
	}
	if len(d.redeemScript) > 0 && script.Hash160(d.redeemScript) == id {
		return d.redeemScript, true
	}
	if len(d.witnessScript) > 0 && script.Hash160(d.witnessScript) == id {
		return d.witnessScript, true
	}
	return nil, false
}

// getPubKey is Core's GetPubKey: signatures, origins, taproot keys, then
// the provider.
func (d *psbtInput) getPubKey(id [20]byte) ([]byte, bool) {
	if sp, ok := d.sigs[id]; ok {
		return sp.pub, true
	}
	if e, ok := d.miscPubs[id]; ok {
		return e.pub, true
	}
	if x, ok := d.tapPubs[id]; ok {
		return append([]byte{2}, x[:]...), true
	}
	if k := d.ctx.provider.keyByID(id); k != nil {
		return k.pubBytes, true
	}
	return d.ctx.provider.pubKeyByID(id)
}

// createSig is Core's CreateSig: an existing signature, else the key's
// origin is recorded and the provider's key signs.
func (d *psbtInput) createSig(pub, scriptCode []byte, sv sigVersion) ([]byte, bool) {
	id := script.Hash160(pub)
	if sp, ok := d.sigs[id]; ok {
		return sp.sig, true
	}
	if e, ok := d.pc.ps.keyOrigin(id); ok {
		if _, have := d.miscPubs[id]; !have {
			d.miscPubs[id] = originEntry{pub: append([]byte(nil), pub...), origin: e.origin}
		}
	}
	if d.pc.noTxData {
		sig := dummyECDSA()
		d.sigs[id] = sigPair{pub: append([]byte(nil), pub...), sig: sig}
		return sig, true
	}
	if !d.dryRun {
		if sig, ok := d.inputSigner.createSig(pub, scriptCode, sv); ok {
			return sig, true
		}
	}
	d.missing.Sigs = append(d.missing.Sigs, id)
	return nil, false
}

// dummyECDSA is Core's DUMMY_SIGNATURE_CREATOR signature: a valid DER
// encoding of 71 bytes with its hash type.
func dummyECDSA() []byte {
	const rLen, sLen = 32, 32
	sig := make([]byte, rLen+sLen+7)
	sig[0], sig[1], sig[2], sig[3], sig[4] = 0x30, rLen+sLen+4, 0x02, rLen, 0x01
	sig[4+rLen], sig[5+rLen], sig[6+rLen] = 0x02, sLen, 0x01
	sig[6+rLen+sLen] = byte(txscript.SigHashAll)
	return sig
}

// spendData merges the provider's tree for the output key into the
// signature data (SignTaproot's GetTaprootSpendData and
// GetTaprootBuilder).
func (d *psbtInput) spendData(outputKey [32]byte) {
	t := d.pc.ps.trees[outputKey]
	if t == nil {
		return
	}
	d.trBuilder = t
	d.trInternal = t.InternalKey
	if len(t.MerkleRoot) == 32 {
		copy(d.trRoot[:], t.MerkleRoot)
	}
	for _, l := range t.Leaves {
		d.addLeaf(psbt.TapLeaf{Script: string(l.Script), LeafVersion: l.LeafVersion},
			map[string]bool{string(l.ControlBlock): true})
	}
}

func (d *psbtInput) recordTapOrigin(x [32]byte, leafHash *[32]byte) {
	o, ok := d.pc.ps.keyOriginByXOnly(x)
	if !ok {
		return
	}
	e, have := d.tapMisc[x]
	if !have {
		e = psbt.TapKeyOrigin{Origin: o}
	}
	if leafHash != nil {
		found := false
		for _, h := range e.LeafHashes {
			found = found || h == *leafHash
		}
		if !found {
			e.LeafHashes = append(append([][32]byte(nil), e.LeafHashes...), *leafHash)
			sortHashes(e.LeafHashes)
		}
	}
	d.tapMisc[x] = e
}

func sortHashes(h [][32]byte) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && bytes.Compare(h[j][:], h[j-1][:]) < 0; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

// signTaprootPSBT is Core's SignTaproot over the signature data.
func (d *psbtInput) signTaprootPSBT(outputKey [32]byte) ([][]byte, bool) {
	d.spendData(outputKey)
	d.recordTapOrigin(d.trInternal, nil)
	d.recordTapOrigin(outputKey, nil)
	if len(d.tapKeySig) == 0 && d.pc.noTxData {
		// Core's dummy creator signs any key: 64 zero bytes.
		d.tapKeySig = make([]byte, 64)
	}
	if len(d.tapKeySig) == 0 && !d.dryRun {
		// The internal key tweaked by the merkle root, then the output
		// key; each, when no key of the provider signs, by aggregating
		// MuSig2 partial signatures (Core's make_keypath_sig).
		root := d.trRoot[:]
		if d.trRoot == ([32]byte{}) {
			root = nil
		}
		if k := d.ctx.provider.keyByXOnly(d.trInternal[:]); k != nil && d.trInternal != ([32]byte{}) && d.ctx.allKnown {
			if sk := k.tweakedKey(root); sk != nil {
				if sig, ok := d.schnorrKeyPath(sk, outputKey); ok {
					d.tapKeySig = sig
				}
			}
		}
		if len(d.tapKeySig) == 0 {
			d.tapKeySig = d.signMuSig2(d.trInternal, true, d.trRoot, nil)
		}
		if len(d.tapKeySig) == 0 && d.ctx.allKnown {
			if k := d.ctx.provider.keyByXOnly(outputKey[:]); k != nil {
				plain, _ := k.schnorrKeys()
				if sig, ok := d.schnorrKeyPath(plain, outputKey); ok {
					d.tapKeySig = sig
				}
			}
		}
		if len(d.tapKeySig) == 0 {
			d.tapKeySig = d.signMuSig2(outputKey, false, [32]byte{}, nil)
		}
	}
	if len(d.tapKeySig) > 0 {
		return [][]byte{d.tapKeySig}, true
	}

	var best [][]byte
	bestSize := 0
	for _, leaf := range sortedLeafKeys(d.trScripts) {
		stack, ok := d.signTapLeaf(leaf)
		if !ok {
			continue
		}
		stack = append(stack, []byte(leaf.Script), []byte(smallestControlBlock(d.trScripts[leaf])))
		if size := stackSize(stack); best == nil || size < bestSize {
			best, bestSize = stack, size
		}
	}
	return best, best != nil
}

func (d *psbtInput) schnorrKeyPath(sk *schnorrKey, outputKey [32]byte) ([]byte, bool) {
	hash, err := d.taprootSigHash(d.ctx.hashType)
	if err != nil {
		return nil, false
	}
	return schnorrSign(d.inputSigner, sk, hash, outputKey[:])
}

func sortedLeafKeys(m map[psbt.TapLeaf]map[string]bool) []psbt.TapLeaf {
	keys := make([]psbt.TapLeaf, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && leafLess(keys[j], keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func leafLess(a, b psbt.TapLeaf) bool {
	if a.Script != b.Script {
		return a.Script < b.Script
	}
	return a.LeafVersion < b.LeafVersion
}

func smallestControlBlock(cbs map[string]bool) string {
	best, first := "", true
	for cb := range cbs {
		if first || len(cb) < len(best) || len(cb) == len(best) && cb < best {
			best, first = cb, false
		}
	}
	return best
}

// signTapLeaf is Core's SignTaprootScript: a BIP 342 leaf satisfied as
// miniscript with existing and new signatures.
func (d *psbtInput) signTapLeaf(leaf psbt.TapLeaf) ([][]byte, bool) {
	if leaf.LeafVersion != LeafVersionTapscript {
		return nil, false
	}
	tl := txscript.NewTapLeaf(txscript.TapscriptLeafVersion(leaf.LeafVersion), []byte(leaf.Script))
	sat := &psbtTapSatisfier{d: d, leaf: tl, leafHash: tl.TapHash()}
	n := miniscript.Decode([]byte(leaf.Script), miniscript.Tapscript, sat)
	if n == nil {
		return nil, false
	}
	st, av := n.Satisfy(sat)
	if av != miniscript.Yes {
		return nil, false
	}
	return st, true
}

// satisfyWsh is ProduceSignature's miniscript fallback for witness scripts.
func (d *psbtInput) satisfyWsh(ws []byte) ([][]byte, bool) {
	sat := &psbtWshSatisfier{d: d, ws: ws}
	n := miniscript.Decode(ws, miniscript.P2WSH, sat)
	if n == nil {
		return nil, false
	}
	st, av := n.Satisfy(sat)
	if av != miniscript.Yes {
		return nil, false
	}
	return st, true
}

// psbtWshSatisfier is Core's WshSatisfier over the signature data.
type psbtWshSatisfier struct {
	d    *psbtInput
	ws   []byte
	keys [][]byte
}

func (w *psbtWshSatisfier) add(pub []byte) (int, bool) {
	w.keys = append(w.keys, append([]byte(nil), pub...))
	return len(w.keys) - 1, true
}

func (w *psbtWshSatisfier) FromPKBytes(pub []byte) (int, bool) {
	if len(pub) != 33 || (pub[0] != 2 && pub[0] != 3) {
		return 0, false
	}
	return w.add(pub)
}

func (w *psbtWshSatisfier) FromPKHBytes(h []byte) (int, bool) {
	pub, ok := w.d.getPubKey([20]byte(h))
	if !ok {
		return 0, false
	}
	return w.add(pub)
}

func (w *psbtWshSatisfier) KeyID(i int) string { return string(w.keys[i]) }

func (w *psbtWshSatisfier) PKBytes(i int) []byte { return w.keys[i] }

func (w *psbtWshSatisfier) Sign(i int) ([]byte, miniscript.Availability) {
	sig, ok := w.d.createSig(w.keys[i], w.ws, sigWitnessV0)
	if !ok {
		return nil, miniscript.No
	}
	return sig, miniscript.Yes
}

func (w *psbtWshSatisfier) Preimage(fr miniscript.Fragment, hash []byte) ([]byte, miniscript.Availability) {
	return w.d.preimage(fr, hash)
}

func (w *psbtWshSatisfier) CheckOlder(n uint32) bool { return w.d.checkOlder(n) }

func (w *psbtWshSatisfier) CheckAfter(n uint32) bool { return w.d.checkAfter(n) }

// checkOlder and checkAfter are the timelock checks of the spending input;
// an output being updated has no spending input and satisfies none.
func (d *psbtInput) checkOlder(n uint32) bool {
	if d.dryRun || d.idx >= len(d.view.TxIn) {
		return false
	}
	return (&wshSatisfier{s: d.inputSigner}).CheckOlder(n)
}

func (d *psbtInput) checkAfter(n uint32) bool {
	if d.dryRun || d.idx >= len(d.view.TxIn) {
		return false
	}
	return (&wshSatisfier{s: d.inputSigner}).CheckAfter(n)
}

// preimage finds a preimage in the PSBT input, then in the provider.
func (d *psbtInput) preimage(fr miniscript.Fragment, hash []byte) ([]byte, miniscript.Availability) {
	in := d.in
	var pre []byte
	var ok bool
	switch fr {
	case miniscript.Sha256:
		pre, ok = in.SHA256Preimages[[32]byte(hash)]
	case miniscript.Hash256:
		pre, ok = in.HASH256Preimages[[32]byte(hash)]
	case miniscript.Ripemd160:
		pre, ok = in.RIPEMD160Preimages[[20]byte(hash)]
	case miniscript.Hash160:
		pre, ok = in.HASH160Preimages[[20]byte(hash)]
	}
	if ok {
		return pre, miniscript.Yes
	}
	return (&wshSatisfier{s: d.inputSigner}).Preimage(fr, hash)
}

// psbtTapSatisfier is Core's TapSatisfier over the signature data.
type psbtTapSatisfier struct {
	d        *psbtInput
	leaf     txscript.TapLeaf
	leafHash chainhash.Hash
	keys     [][]byte
}

func (t *psbtTapSatisfier) FromPKBytes(pub []byte) (int, bool) {
	if len(pub) != 32 {
		return 0, false
	}
	t.keys = append(t.keys, append([]byte(nil), pub...))
	return len(t.keys) - 1, true
}

func (t *psbtTapSatisfier) FromPKHBytes(h []byte) (int, bool) {
	id := [20]byte(h)
	if x, ok := t.d.tapPubs[id]; ok {
		return t.FromPKBytes(x[:])
	}
	pub, ok := t.d.ctx.provider.pubKeyByXOnlyID(id)
	if !ok || len(pub) < 33 {
		return 0, false
	}
	return t.FromPKBytes(pub[1:33])
}

func (t *psbtTapSatisfier) KeyID(i int) string { return string(t.keys[i]) }

func (t *psbtTapSatisfier) PKBytes(i int) []byte { return t.keys[i] }

// Sign is Core's CreateTaprootScriptSig.
func (t *psbtTapSatisfier) Sign(i int) ([]byte, miniscript.Availability) {
	x := [32]byte(t.keys[i])
	lh := [32]byte(t.leafHash)
	t.d.recordTapOrigin(x, &lh)
	key := psbt.TapScriptSigKey{XOnly: x, LeafHash: lh}
	if sig, ok := t.d.tapScriptSigs[key]; ok {
		return sig, miniscript.Yes
	}
	if t.d.dryRun || !t.d.ctx.allKnown {
		return nil, miniscript.No
	}
	k := t.d.ctx.provider.keyByXOnly(x[:])
	if k == nil {
		return nil, miniscript.No
	}
	hash, err := txscript.CalcTapscriptSignaturehash(t.d.ctx.sigHashes, t.d.ctx.hashType,
		t.d.view, t.d.idx, t.d.ctx.fetcher, t.leaf)
	if err != nil {
		return nil, miniscript.No
	}
	plain, _ := k.schnorrKeys()
	sig, ok := schnorrSign(t.d.inputSigner, plain, hash, x[:])
	if !ok {
		return nil, miniscript.No
	}
	t.d.tapScriptSigs[key] = sig
	return sig, miniscript.Yes
}

func (t *psbtTapSatisfier) Preimage(fr miniscript.Fragment, hash []byte) ([]byte, miniscript.Availability) {
	return t.d.preimage(fr, hash)
}

func (t *psbtTapSatisfier) CheckOlder(n uint32) bool { return t.d.checkOlder(n) }

func (t *psbtTapSatisfier) CheckAfter(n uint32) bool { return t.d.checkAfter(n) }

// validXOnly reports whether x is the X coordinate of a curve point.
func validXOnly(x [32]byte) bool {
	_, err := secp256k1.ParsePubKey(append([]byte{2}, x[:]...))
	return err == nil
}

// UpdateOutput is Core's UpdatePSBTOutput: the output's script is walked
// with the provider (no signature is made) and the redeem and witness
// scripts, key origins and taproot tree it meets are added to the output.
func (ps *PSBTSigner) UpdateOutput(p *psbt.Packet, i int) {
	out := &p.Outputs[i]
	txout := p.UnsignedTx.TxOut[i]
	coin := &Coin{PkScript: txout.PkScript, Amount: txout.Value}
	ctx := &txContext{tx: p.UnsignedTx, provider: ps.provider()}
	pc := &psbtContext{txContext: ctx, ps: ps, p: p}
	d := pc.newData(0, p.UnsignedTx, coin, &psbt.Input{})
	d.dryRun = true
	// Core's PSBTOutput::FillSignatureData.
	d.redeemScript = out.RedeemScript
	d.witnessScript = out.WitnessScript
	for pub, o := range out.BIP32Derivs {
		d.miscPubs[script.Hash160([]byte(pub))] = originEntry{pub: []byte(pub), origin: o}
	}
	// Core rebuilds the tree's spend data; walking an output needs only
	// its leaf scripts, not their control blocks.
	if len(out.TapTree) > 0 && validXOnly(out.TapInternalKey) {
		d.trInternal = out.TapInternalKey
		for _, l := range out.TapTree {
			d.addLeaf(psbt.TapLeaf{Script: string(l.Script), LeafVersion: l.LeafVersion}, nil)
		}
	}
	for x, o := range out.TapBIP32Derivs {
		d.tapMisc[x] = o
		d.tapPubs[script.Hash160(x[:])] = x
	}
	d.produce()
	// Core's PSBTOutput::FromSignatureData.
	if len(out.RedeemScript) == 0 && len(d.redeemScript) > 0 {
		out.RedeemScript = d.redeemScript
	}
	if len(out.WitnessScript) == 0 && len(d.witnessScript) > 0 {
		out.WitnessScript = d.witnessScript
	}
	for _, e := range d.miscPubs {
		if out.BIP32Derivs == nil {
			out.BIP32Derivs = map[string]psbt.KeyOrigin{}
		}
		if _, ok := out.BIP32Derivs[string(e.pub)]; !ok {
			out.BIP32Derivs[string(e.pub)] = e.origin
		}
	}
	if d.trInternal != ([32]byte{}) {
		out.TapInternalKey = d.trInternal
	}
	if d.trBuilder != nil && len(d.trBuilder.Leaves) > 0 {
		out.TapTree = nil
		for _, l := range d.trBuilder.Leaves {
			out.TapTree = append(out.TapTree, psbt.TapTreeLeaf{Depth: byte(l.Depth), LeafVersion: l.LeafVersion, Script: l.Script})
		}
	}
	for x, o := range d.tapMisc {
		if out.TapBIP32Derivs == nil {
			out.TapBIP32Derivs = map[[32]byte]psbt.TapKeyOrigin{}
		}
		if _, ok := out.TapBIP32Derivs[x]; !ok {
			out.TapBIP32Derivs[x] = o
		}
	}
}
