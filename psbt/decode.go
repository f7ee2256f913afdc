package psbt

import (
	"bytes"
	"encoding/base64"
	"strings"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// DecodeBase64 reads a base64 PSBT as Core's DecodeBase64PSBT: the text
// must be strict, padded base64 without whitespace.
func DecodeBase64(s string) (*Packet, error) {
	raw, ok := decodeBase64(s)
	if !ok {
		return nil, &Error{Kind: ErrBase64, Description: "invalid base64"}
	}
	return Decode(raw)
}

// DecodeBase64Any is DecodeBase64 for version 0 or version 2 packets.
func DecodeBase64Any(s string) (*Packet, error) {
	raw, ok := decodeBase64(s)
	if !ok {
		return nil, &Error{Kind: ErrBase64, Description: "invalid base64"}
	}
	return DecodeAny(raw)
}

func decodeBase64(s string) ([]byte, bool) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, false
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(s)
	return raw, err == nil
}

// Decode reads a version 0 PSBT exactly as Core's DecodeRawPSBT: the same
// checks in the same order and the same messages. A version field above 0
// is refused ("Unsupported version number"); BIP 370 fields in a version 0
// packet are unknown fields, as in Core.
func Decode(b []byte) (*Packet, error) { return decode(b, false) }

// DecodeAny reads a version 0 or version 2 PSBT. Version 0 packets are read
// as Decode reads them, except that BIP 370's fields are refused in them;
// version 2 packets follow BIP 370.
func DecodeAny(b []byte) (*Packet, error) { return decode(b, true) }

func decode(b []byte, v2 bool) (p *Packet, err error) {
	if len(b) > MaxSize {
		return nil, &Error{Kind: ErrMalformed, Description: "PSBT is larger than 100 MB: iostream error"}
	}
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(failure)
			if !ok {
				panic(r)
			}
			p, err = nil, &Error{Kind: ErrMalformed, Description: f.msg + ": iostream error"}
		}
	}()
	s := newStream(b)
	p = readPacket(s, v2)
	if !s.empty() {
		return nil, &Error{Kind: ErrExtraData, Description: "extra data after PSBT"}
	}
	return p, nil
}

// keySet detects duplicate keys within one map. The zero value is empty;
// its map is made on first use, since most maps hold few typed keys.
type keySet struct{ m map[string]bool }

func (k *keySet) add(key []byte) bool {
	if k.m[string(key)] {
		return false
	}
	if k.m == nil {
		k.m = map[string]bool{}
	}
	k.m[string(key)] = true
	return true
}

// readMap reads one map's key-value pairs up to its separator, handing
// each key and a stream over it (at its type) to field. A map that ends
// without its separator fails, naming the map (what).
func readMap(s *stream, field func(key []byte, sk *stream), what string) {
	for !s.empty() {
		key := s.bytes()
		if len(key) == 0 {
			return
		}
		field(key, newKeyStream(key))
	}
	fail("Separator is missing at the end of " + what)
}

// first records key in the set and fails as Core does when the map held
// it already (dup) or when its length is none of sizes (size), in that
// order.
func (k *keySet) first(key []byte, dup, size string, sizes ...int) {
	if !k.add(key) {
		fail(dup)
	}
	for _, n := range sizes {
		if len(key) == n {
			return
		}
	}
	fail(size)
}

func readPacket(s *stream, v2 bool) *Packet {
	if !bytes.Equal(s.take(5), Magic[:]) {
		fail("Invalid PSBT magic bytes")
	}
	p := &Packet{}
	var seen keySet
	type xpubID struct{ pub, chain string }
	xpubs := map[xpubID]bool{}
	readMap(s, func(key []byte, sk *stream) {
		switch sk.compactSize() {
		case GlobalUnsignedTx:
			seen.first(key, "Duplicate Key, unsigned tx already provided",
				"Global unsigned tx key is more than one byte type", 1)
			var tx = fromVector(s, func() any { return readTx(s, false) })
			p.UnsignedTx = tx.(*txT)
			for _, in := range p.UnsignedTx.TxIn {
				if len(in.SignatureScript) > 0 || len(in.Witness) > 0 {
					fail("Unsigned tx does not have empty scriptSigs and scriptWitnesses.")
				}
			}
		case GlobalXPub:
			if len(key) != 78+1 {
				fail("Size of key was not the expected size for the type global xpub")
			}
			var x XPub
			copy(x.Key[:], key[1:])
			if !validPubKey(x.Key[45:]) {
				fail("Invalid pubkey")
			}
			id := xpubID{string(x.Key[45:]), string(x.Key[13:45])}
			if xpubs[id] {
				fail("Duplicate key, global xpub already provided")
			}
			xpubs[id] = true
			x.Origin = readKeyOrigin(s, s.compactSize())
			p.XPubs = append(p.XPubs, x)
		case GlobalVersion:
			if p.Version != nil {
				fail("Duplicate Key, version already provided")
			} else if len(key) != 1 {
				fail("Global version key is more than one byte type")
			}
			v := fromVector(s, func() any { return s.u32() }).(uint32)
			p.Version = &v
			if v > 0 && !(v2 && v == 2) {
				fail("Unsupported version number")
			}
		case GlobalProprietary:
			readProprietary(s, sk, key, &p.Proprietary)
		default:
			readUnknown(s, key, &p.Unknown)
		}
	}, "the global map")
	nIn, nOut := 0, 0
	if v2 && p.GetVersion() == 2 {
		nIn, nOut = p.takeGlobalsV2()
	} else {
		if v2 {
			refuseV2Fields(p.Unknown, "global", GlobalTxVersion, GlobalFallbackLocktime,
				GlobalInputCount, GlobalOutputCount, GlobalTxModifiable)
		}
		if p.UnsignedTx == nil {
			fail("No unsigned transaction was provided")
		}
		nIn, nOut = len(p.UnsignedTx.TxIn), len(p.UnsignedTx.TxOut)
	}

	if p.UnsignedTx != nil {
		// The transaction was read, so its counts are bounded by the
		// bytes present.
		p.Inputs = make([]Input, 0, nIn)
		p.Outputs = make([]Output, 0, nOut)
	}
	for i := 0; !s.empty() && i < nIn; i++ {
		in := readInput(s)
		var prev chainhash.Hash
		var index uint32
		if p.UnsignedTx != nil {
			if v2 {
				refuseV2Fields(in.Unknown, "input", InPreviousTxID, InOutputIndex, InSequence,
					InRequiredTimeLocktime, InRequiredHeightLocktime)
			}
			op := p.UnsignedTx.TxIn[i].PreviousOutPoint
			prev, index = op.Hash, op.Index
		} else {
			in.takeV2()
			prev, index = *in.PreviousTxID, *in.OutputIndex
		}
		if in.NonWitnessUTXO != nil {
			if TxID(in.NonWitnessUTXO) != prev {
				fail("Non-witness UTXO does not match outpoint hash")
			}
			if int(index) >= len(in.NonWitnessUTXO.TxOut) {
				fail("Input specifies output index that does not exist")
			}
		}
		p.Inputs = append(p.Inputs, in)
	}
	if len(p.Inputs) != nIn {
		fail("Inputs provided does not match the number of inputs in transaction.")
	}
	for i := 0; !s.empty() && i < nOut; i++ {
		out := readOutput(s)
		if p.UnsignedTx != nil {
			if v2 {
				refuseV2Fields(out.Unknown, "output", OutAmount, OutScript)
			}
		} else {
			out.takeV2()
		}
		p.Outputs = append(p.Outputs, out)
	}
	if len(p.Outputs) != nOut {
		fail("Outputs provided does not match the number of outputs in transaction.")
	}
	return p
}

// fromVector is Core's UnserializeFromVector: a compact size announces how
// many bytes read consumes, and it must consume exactly that many.
func fromVector(s *stream, read func() any) any {
	n := s.compactSize()
	before := s.remaining()
	v := read()
	if uint64(before-s.remaining()) != n {
		fail("Size of value was not the stated size")
	}
	return v
}

// read32 reads a value of exactly 32 bytes behind its length.
func read32(s *stream) []byte {
	return fromVector(s, func() any { return s.take(32) }).([]byte)
}

func validPubKey(b []byte) bool {
	_, err := secp256k1.ParsePubKey(b)
	return err == nil
}

// readKeyOrigin is Core's DeserializeKeyOrigin.
func readKeyOrigin(s *stream, length uint64) KeyOrigin {
	if length%4 != 0 || length == 0 {
		fail("Invalid length for HD key path")
	}
	var o KeyOrigin
	copy(o.Fingerprint[:], s.take(4))
	for i := uint64(4); i < length; i += 4 {
		o.Path = append(o.Path, s.u32())
	}
	return o
}

// readHDKeypath is Core's DeserializeHDKeypaths for one key.
func readHDKeypath(s *stream, key []byte, m *map[string]KeyOrigin) {
	if len(key) != 65+1 && len(key) != 33+1 {
		fail("Size of key was not the expected size for the type BIP32 keypath")
	}
	pub := key[1:]
	if !validPubKey(pub) {
		fail("Invalid pubkey")
	}
	if _, dup := (*m)[string(pub)]; dup {
		fail("Duplicate Key, pubkey derivation path already provided")
	}
	o := readKeyOrigin(s, s.compactSize())
	if *m == nil {
		*m = map[string]KeyOrigin{}
	}
	(*m)[string(pub)] = o
}

// readTapBIP32Deriv reads an input's or output's (side) taproot BIP 32
// derivation into *m; the first value of a key is kept.
func readTapBIP32Deriv(s *stream, seen *keySet, key []byte, m *map[[32]byte]TapKeyOrigin, side string) {
	seen.first(key, "Duplicate Key, "+strings.ToLower(side)+" Taproot BIP32 keypath already provided",
		side+" Taproot BIP32 keypath key is not at 33 bytes", 33)
	var x [32]byte
	copy(x[:], key[1:])
	o := readTapKeyOrigin(s, side)
	if *m == nil {
		*m = map[[32]byte]TapKeyOrigin{}
	}
	if _, ok := (*m)[x]; !ok {
		(*m)[x] = o
	}
}

// readTapKeyOrigin reads the value of a taproot BIP 32 derivation.
func readTapKeyOrigin(s *stream, side string) TapKeyOrigin {
	valueLen := s.compactSize()
	before := s.remaining()
	n := s.count()
	set := map[[32]byte]bool{}
	for i := 0; i < n; i++ {
		var h [32]byte
		copy(h[:], s.take(32))
		set[h] = true
	}
	hashesLen := uint64(before - s.remaining())
	if hashesLen > valueLen {
		fail(side + " Taproot BIP32 keypath has an invalid length")
	}
	var o TapKeyOrigin
	for h := range set {
		o.LeafHashes = append(o.LeafHashes, h)
	}
	sortHashes(o.LeafHashes)
	o.Origin = readKeyOrigin(s, valueLen-hashesLen)
	return o
}

func readProprietary(s *stream, sk *stream, key []byte, m *map[string][]byte) {
	sk.bytes()
	sk.compactSize()
	if _, dup := (*m)[string(key)]; dup {
		fail("Duplicate Key, proprietary key already found")
	}
	v := s.bytes()
	if *m == nil {
		*m = map[string][]byte{}
	}
	(*m)[string(key)] = v
}

func readUnknown(s *stream, key []byte, m *map[string][]byte) {
	if _, dup := (*m)[string(key)]; dup {
		fail("Duplicate Key, key for unknown value already provided")
	}
	v := s.bytes()
	if *m == nil {
		*m = map[string][]byte{}
	}
	(*m)[string(key)] = v
}

// readMuSig2Participants reads an input's or output's (side) participant
// keys of an aggregate key into *m; the first value of a key is kept.
func readMuSig2Participants(s *stream, sk *stream, seen *keySet, key []byte, m *map[[33]byte][][33]byte, side string) {
	seen.first(key, "Duplicate Key, "+strings.ToLower(side)+" participant pubkeys for an aggregate key already provided",
		side+" musig2 participants pubkeys aggregate key is not 34 bytes", 33+1)
	var agg [33]byte
	copy(agg[:], sk.take(33))
	val := s.bytes()
	var parts [][33]byte
	for len(val) >= 33 {
		var pk [33]byte
		copy(pk[:], val[:33])
		parts = append(parts, pk)
		val = val[33:]
	}
	if len(val) != 0 {
		fail(side + " musig2 participants pubkeys value size is not a multiple of 33")
	}
	if *m == nil {
		*m = map[[33]byte][][33]byte{}
	}
	if _, ok := (*m)[agg]; !ok {
		(*m)[agg] = parts
	}
}

// addMuSig2Value records a participant's value (public nonce, partial
// signature) for an aggregate key; the first value read is kept.
func addMuSig2Value[V any](m *map[MuSig2Key]map[[33]byte]V, id MuSig2Key, part [33]byte, v V) {
	if *m == nil {
		*m = map[MuSig2Key]map[[33]byte]V{}
	}
	if (*m)[id] == nil {
		(*m)[id] = map[[33]byte]V{}
	}
	if _, ok := (*m)[id][part]; !ok {
		(*m)[id][part] = v
	}
}

func readMuSig2ID(sk *stream) (MuSig2Key, [33]byte) {
	var id MuSig2Key
	var part [33]byte
	copy(part[:], sk.take(33))
	copy(id.Aggregate[:], sk.take(33))
	if !sk.empty() {
		copy(id.LeafHash[:], sk.take(32))
	}
	return id, part
}

// readPreimage reads an input's hash preimage whose key is the type byte
// and the hash (20 or 32 bytes) into *m, refusing a key of another size or
// a hash already present. name is the hash's name in Core's messages.
func readPreimage[H [20]byte | [32]byte](s *stream, key []byte, name string, m *map[H][]byte) {
	var h H
	if len(key) != len(h)+1 {
		fail("Size of key was not the expected size for the type " + name + " preimage")
	}
	h = H(key[1:])
	if _, dup := (*m)[h]; dup {
		fail("Duplicate Key, input " + name + " preimage already provided")
	}
	v := s.bytes()
	if *m == nil {
		*m = map[H][]byte{}
	}
	(*m)[h] = v
}

func readInput(s *stream) Input {
	var in Input
	var seen keySet
	readMap(s, func(key []byte, sk *stream) {
		switch sk.compactSize() {
		case InNonWitnessUTXO:
			seen.first(key, "Duplicate Key, input non-witness utxo already provided",
				"Non-witness utxo key is more than one byte type", 1)
			in.NonWitnessUTXO = fromVector(s, func() any { return readTx(s, true) }).(*txT)
		case InWitnessUTXO:
			seen.first(key, "Duplicate Key, input witness utxo already provided",
				"Witness utxo key is more than one byte type", 1)
			in.WitnessUTXO = fromVector(s, func() any { return readTxOut(s) }).(*txOutT)
		case InPartialSig:
			if len(key) != 65+1 && len(key) != 33+1 {
				fail("Size of key was not the expected size for the type partial signature pubkey")
			}
			pub := append([]byte(nil), key[1:]...)
			if !validPubKey(pub) {
				fail("Invalid pubkey")
			}
			id := hash160(pub)
			if _, dup := in.PartialSigs[id]; dup {
				fail("Duplicate Key, input partial signature for pubkey already provided")
			}
			sig := s.bytes()
			if len(sig) == 0 || !validSigEncoding(sig) {
				fail("Signature is not a valid encoding")
			}
			if in.PartialSigs == nil {
				in.PartialSigs = map[[20]byte]PartialSig{}
			}
			in.PartialSigs[id] = PartialSig{PubKey: pub, Signature: sig}
		case InSighash:
			seen.first(key, "Duplicate Key, input sighash type already provided",
				"Sighash type key is more than one byte type", 1)
			v := fromVector(s, func() any { return s.u32() }).(uint32)
			in.SighashType = &v
		case InRedeemScript:
			seen.first(key, "Duplicate Key, input redeemScript already provided",
				"Input redeemScript key is more than one byte type", 1)
			in.RedeemScript = s.bytes()
		case InWitnessScript:
			seen.first(key, "Duplicate Key, input witnessScript already provided",
				"Input witnessScript key is more than one byte type", 1)
			in.WitnessScript = s.bytes()
		case InBIP32Derivation:
			readHDKeypath(s, key, &in.BIP32Derivs)
		case InFinalScriptSig:
			seen.first(key, "Duplicate Key, input final scriptSig already provided",
				"Final scriptSig key is more than one byte type", 1)
			in.FinalScriptSig = s.bytes()
		case InFinalScriptWitness:
			seen.first(key, "Duplicate Key, input final scriptWitness already provided",
				"Final scriptWitness key is more than one byte type", 1)
			in.FinalScriptWitness = fromVector(s, func() any {
				n := s.count()
				var stack [][]byte
				for i := 0; i < n; i++ {
					stack = append(stack, s.bytes())
				}
				return stack
			}).([][]byte)
		case InRIPEMD160:
			readPreimage(s, key, "ripemd160", &in.RIPEMD160Preimages)
		case InHASH160:
			readPreimage(s, key, "hash160", &in.HASH160Preimages)
		case InSHA256:
			readPreimage(s, key, "sha256", &in.SHA256Preimages)
		case InHASH256:
			readPreimage(s, key, "hash256", &in.HASH256Preimages)
		case InTapKeySig:
			seen.first(key, "Duplicate Key, input Taproot key signature already provided",
				"Input Taproot key signature key is more than one byte type", 1)
			in.TapKeySig = s.bytes()
			if len(in.TapKeySig) < 64 {
				fail("Input Taproot key path signature is shorter than 64 bytes")
			} else if len(in.TapKeySig) > 65 {
				fail("Input Taproot key path signature is longer than 65 bytes")
			}
		case InTapScriptSig:
			seen.first(key, "Duplicate Key, input Taproot script signature already provided",
				"Input Taproot script signature key is not 65 bytes", 65)
			var id TapScriptSigKey
			copy(id.XOnly[:], key[1:33])
			copy(id.LeafHash[:], key[33:65])
			sig := s.bytes()
			if len(sig) < 64 {
				fail("Input Taproot script path signature is shorter than 64 bytes")
			} else if len(sig) > 65 {
				fail("Input Taproot script path signature is longer than 65 bytes")
			}
			if in.TapScriptSigs == nil {
				in.TapScriptSigs = map[TapScriptSigKey][]byte{}
			}
			if _, ok := in.TapScriptSigs[id]; !ok {
				in.TapScriptSigs[id] = sig
			}
		case InTapLeafScript:
			if !seen.add(key) {
				fail("Duplicate Key, input Taproot leaf script already provided")
			} else if len(key) < 34 {
				fail("Taproot leaf script key is not at least 34 bytes")
			} else if (len(key)-2)%32 != 0 {
				fail("Input Taproot leaf script key's control block size is not valid")
			}
			v := s.bytes()
			if len(v) == 0 {
				fail("Input Taproot leaf script must be at least 1 byte")
			}
			leaf := TapLeaf{Script: string(v[:len(v)-1]), LeafVersion: v[len(v)-1]}
			in.addLeafScript(leaf, key[1:])
		case InTapBIP32Derivation:
			readTapBIP32Deriv(s, &seen, key, &in.TapBIP32Derivs, "Input")
		case InTapInternalKey:
			seen.first(key, "Duplicate Key, input Taproot internal key already provided",
				"Input Taproot internal key key is more than one byte type", 1)
			copy(in.TapInternalKey[:], read32(s))
		case InTapMerkleRoot:
			seen.first(key, "Duplicate Key, input Taproot merkle root already provided",
				"Input Taproot merkle root key is more than one byte type", 1)
			copy(in.TapMerkleRoot[:], read32(s))
		case InMuSig2Participants:
			readMuSig2Participants(s, sk, &seen, key, &in.MuSig2Participants, "Input")
		case InMuSig2PubNonce:
			seen.first(key, "Duplicate Key, input musig2 pubnonce already provided",
				"Input musig2 pubnonce key is not expected size of 67 or 99 bytes", 2*33+1, 2*33+32+1)
			id, part := readMuSig2ID(sk)
			nonce := s.bytes()
			if len(nonce) != 66 {
				fail("Input musig2 pubnonce value is not 66 bytes")
			}
			addMuSig2Value(&in.MuSig2PubNonces, id, part, nonce)
		case InMuSig2PartialSig:
			seen.first(key, "Duplicate Key, input musig2 partial sig already provided",
				"Input musig2 partial sig key is not expected size of 67 or 99 bytes", 2*33+1, 2*33+32+1)
			id, part := readMuSig2ID(sk)
			addMuSig2Value(&in.MuSig2PartialSigs, id, part, [32]byte(read32(s)))
		case InProprietary:
			readProprietary(s, sk, key, &in.Proprietary)
		default:
			readUnknown(s, key, &in.Unknown)
		}
	}, "an input map")
	return in
}

// addLeafScript records a control block for a leaf script.
func (in *Input) addLeafScript(leaf TapLeaf, controlBlock []byte) {
	if in.TapLeafScripts == nil {
		in.TapLeafScripts = map[TapLeaf]map[string]bool{}
	}
	if in.TapLeafScripts[leaf] == nil {
		in.TapLeafScripts[leaf] = map[string]bool{}
	}
	in.TapLeafScripts[leaf][string(controlBlock)] = true
}

func readOutput(s *stream) Output {
	var out Output
	var seen keySet
	readMap(s, func(key []byte, sk *stream) {
		switch sk.compactSize() {
		case OutRedeemScript:
			seen.first(key, "Duplicate Key, output redeemScript already provided",
				"Output redeemScript key is more than one byte type", 1)
			out.RedeemScript = s.bytes()
		case OutWitnessScript:
			seen.first(key, "Duplicate Key, output witnessScript already provided",
				"Output witnessScript key is more than one byte type", 1)
			out.WitnessScript = s.bytes()
		case OutBIP32Derivation:
			readHDKeypath(s, key, &out.BIP32Derivs)
		case OutTapInternalKey:
			seen.first(key, "Duplicate Key, output Taproot internal key already provided",
				"Output Taproot internal key key is more than one byte type", 1)
			copy(out.TapInternalKey[:], read32(s))
		case OutTapTree:
			seen.first(key, "Duplicate Key, output Taproot tree already provided",
				"Output Taproot tree key is more than one byte type", 1)
			v := s.bytes()
			tr := newStream(v)
			if tr.empty() {
				fail("Output Taproot tree must not be empty")
			}
			var b treeBuilder
			for !tr.empty() {
				depth := tr.u8()
				ver := tr.u8()
				script := tr.bytes()
				if depth > 128 {
					fail("Output Taproot tree has as leaf greater than Taproot maximum depth")
				}
				if ver&^txscript.TaprootLeafMask != 0 {
					fail("Output Taproot tree has a leaf with an invalid leaf version")
				}
				out.TapTree = append(out.TapTree, TapTreeLeaf{Depth: depth, LeafVersion: ver, Script: script})
				b.add(int(depth))
			}
			if !b.complete() {
				fail("Output Taproot tree is malformed")
			}
		case OutTapBIP32Derivation:
			readTapBIP32Deriv(s, &seen, key, &out.TapBIP32Derivs, "Output")
		case OutMuSig2Participants:
			readMuSig2Participants(s, sk, &seen, key, &out.MuSig2Participants, "Output")
		case OutProprietary:
			readProprietary(s, sk, key, &out.Proprietary)
		default:
			readUnknown(s, key, &out.Unknown)
		}
	}, "an output map")
	return out
}

// treeBuilder checks that leaves given depth first with their depths form
// a complete binary tree, as Core's TaprootBuilder (Add, Insert,
// IsComplete) does. branch[d] tells whether a node at depth d waits for
// its sibling.
type treeBuilder struct {
	branch  []bool
	invalid bool
}

func (b *treeBuilder) add(depth int) {
	if depth < 0 || depth > 128 {
		b.invalid = true
		return
	}
	if b.invalid {
		return
	}
	if depth+1 < len(b.branch) {
		b.invalid = true
		return
	}
	for !b.invalid && len(b.branch) > depth && b.branch[depth] {
		b.branch = b.branch[:len(b.branch)-1]
		if depth == 0 {
			b.invalid = true
		}
		depth--
	}
	if !b.invalid {
		for len(b.branch) <= depth {
			b.branch = append(b.branch, false)
		}
		b.branch[depth] = true
	}
}

func (b *treeBuilder) complete() bool {
	return !b.invalid && (len(b.branch) == 0 || (len(b.branch) == 1 && b.branch[0]))
}

// refuseV2Fields fails when a version 0 map holds a BIP 370 field.
func refuseV2Fields(unknown map[string][]byte, where string, types ...uint64) {
	for k := range unknown {
		t := newKeyStream([]byte(k)).compactSize()
		for _, x := range types {
			if t == x {
				fail("PSBTv0 " + where + " map has a PSBTv2 field")
			}
		}
	}
}
