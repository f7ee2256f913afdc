package psbt

import (
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// Global key types.
const (
	GlobalUnsignedTx       = 0x00
	GlobalXPub             = 0x01
	GlobalTxVersion        = 0x02 // BIP 370
	GlobalFallbackLocktime = 0x03 // BIP 370
	GlobalInputCount       = 0x04 // BIP 370
	GlobalOutputCount      = 0x05 // BIP 370
	GlobalTxModifiable     = 0x06 // BIP 370
	GlobalVersion          = 0xfb
	GlobalProprietary      = 0xfc
)

// Input key types.
const (
	InNonWitnessUTXO         = 0x00
	InWitnessUTXO            = 0x01
	InPartialSig             = 0x02
	InSighash                = 0x03
	InRedeemScript           = 0x04
	InWitnessScript          = 0x05
	InBIP32Derivation        = 0x06
	InFinalScriptSig         = 0x07
	InFinalScriptWitness     = 0x08
	InRIPEMD160              = 0x0a
	InSHA256                 = 0x0b
	InHASH160                = 0x0c
	InHASH256                = 0x0d
	InPreviousTxID           = 0x0e // BIP 370
	InOutputIndex            = 0x0f // BIP 370
	InSequence               = 0x10 // BIP 370
	InRequiredTimeLocktime   = 0x11 // BIP 370
	InRequiredHeightLocktime = 0x12 // BIP 370
	InTapKeySig              = 0x13
	InTapScriptSig           = 0x14
	InTapLeafScript          = 0x15
	InTapBIP32Derivation     = 0x16
	InTapInternalKey         = 0x17
	InTapMerkleRoot          = 0x18
	InMuSig2Participants     = 0x1a
	InMuSig2PubNonce         = 0x1b
	InMuSig2PartialSig       = 0x1c
	InProprietary            = 0xfc
)

// Output key types.
const (
	OutRedeemScript       = 0x00
	OutWitnessScript      = 0x01
	OutBIP32Derivation    = 0x02
	OutAmount             = 0x03 // BIP 370
	OutScript             = 0x04 // BIP 370
	OutTapInternalKey     = 0x05
	OutTapTree            = 0x06
	OutTapBIP32Derivation = 0x07
	OutMuSig2Participants = 0x08
	OutProprietary        = 0xfc
)

// MaxSize is the largest PSBT Core reads (MAX_FILE_SIZE_PSBT).
const MaxSize = 100000000

// Magic is the five bytes every PSBT starts with.
var Magic = [5]byte{'p', 's', 'b', 't', 0xff}

// KeyOrigin is a BIP 32 key origin: the fingerprint of the root key and the
// derivation path from it.
type KeyOrigin struct {
	Fingerprint [4]byte
	Path        []uint32
}

// XPub is a global extended public key with its origin. Key holds the 78
// bytes of BIP 32's serialization (version first).
type XPub struct {
	Key    [78]byte
	Origin KeyOrigin
}

// PartialSig is an ECDSA signature with the public key it is for.
type PartialSig struct {
	PubKey    []byte
	Signature []byte
}

// TapScriptSigKey identifies a BIP 340 signature of a script path: the
// X-only key and the leaf hash.
type TapScriptSigKey struct {
	XOnly    [32]byte
	LeafHash [32]byte
}

// TapLeaf identifies a leaf script by its script and leaf version.
type TapLeaf struct {
	Script      string // the script bytes
	LeafVersion byte
}

// TapKeyOrigin is a taproot key's origin and the leaves it appears in.
type TapKeyOrigin struct {
	LeafHashes [][32]byte // sorted, without duplicates
	Origin     KeyOrigin
}

// TapTreeLeaf is one leaf of an output's taproot tree, depth first.
type TapTreeLeaf struct {
	Depth       byte
	LeafVersion byte
	Script      []byte
}

// MuSig2Key identifies the MuSig2 data of one aggregate key on the key path
// (zero LeafHash) or on a leaf.
type MuSig2Key struct {
	Aggregate [33]byte
	LeafHash  [32]byte
}

// Input is one input map. Fields Core treats as absent when empty (scripts,
// signatures, the all-zero taproot keys) are written only when set. The BIP
// 370 fields are set only in version 2 packets.
type Input struct {
	NonWitnessUTXO     *wire.MsgTx
	WitnessUTXO        *wire.TxOut
	PartialSigs        map[[20]byte]PartialSig // by HASH160 of the public key
	SighashType        *uint32
	RedeemScript       []byte
	WitnessScript      []byte
	BIP32Derivs        map[string]KeyOrigin // by public key bytes
	FinalScriptSig     []byte
	FinalScriptWitness [][]byte
	RIPEMD160Preimages map[[20]byte][]byte
	SHA256Preimages    map[[32]byte][]byte
	HASH160Preimages   map[[20]byte][]byte
	HASH256Preimages   map[[32]byte][]byte
	TapKeySig          []byte
	TapScriptSigs      map[TapScriptSigKey][]byte
	TapLeafScripts     map[TapLeaf]map[string]bool // control blocks per leaf
	TapBIP32Derivs     map[[32]byte]TapKeyOrigin
	TapInternalKey     [32]byte
	TapMerkleRoot      [32]byte
	MuSig2Participants map[[33]byte][][33]byte
	MuSig2PubNonces    map[MuSig2Key]map[[33]byte][]byte
	MuSig2PartialSigs  map[MuSig2Key]map[[33]byte][32]byte
	Proprietary        map[string][]byte // by full key
	Unknown            map[string][]byte // by full key

	PreviousTxID           *chainhash.Hash
	OutputIndex            *uint32
	Sequence               *uint32
	RequiredTimeLocktime   *uint32
	RequiredHeightLocktime *uint32
}

// Output is one output map. The BIP 370 fields are set only in version 2
// packets.
type Output struct {
	RedeemScript       []byte
	WitnessScript      []byte
	BIP32Derivs        map[string]KeyOrigin
	TapInternalKey     [32]byte
	TapTree            []TapTreeLeaf
	TapBIP32Derivs     map[[32]byte]TapKeyOrigin
	MuSig2Participants map[[33]byte][][33]byte
	Proprietary        map[string][]byte
	Unknown            map[string][]byte

	Amount    *int64
	Script    []byte // set (possibly empty) exactly when HasScript
	HasScript bool
}

// Packet is a PSBT. In version 0 UnsignedTx holds the transaction; in
// version 2 it is nil and the transaction is spread over the BIP 370 fields.
type Packet struct {
	UnsignedTx  *wire.MsgTx
	XPubs       []XPub
	Version     *uint32
	Proprietary map[string][]byte
	Unknown     map[string][]byte
	Inputs      []Input
	Outputs     []Output

	TxVersion        *int32
	FallbackLocktime *uint32
	TxModifiable     *byte
}

// GetVersion returns the PSBT version (0 when the field is absent).
func (p *Packet) GetVersion() uint32 {
	if p.Version != nil {
		return *p.Version
	}
	return 0
}

// New returns a version 0 packet for tx with empty maps, as Core's
// PartiallySignedTransaction(tx). The scriptSigs and witnesses of tx must be
// empty.
func New(tx *wire.MsgTx) *Packet {
	return &Packet{
		UnsignedTx: tx,
		Inputs:     make([]Input, len(tx.TxIn)),
		Outputs:    make([]Output, len(tx.TxOut)),
	}
}

// UTXO returns the output input i spends, from its non-witness UTXO when
// present and matching, else from its witness UTXO (Core's GetInputUTXO).
func (p *Packet) UTXO(i int) (*wire.TxOut, bool) {
	in := &p.Inputs[i]
	op := p.UnsignedTx.TxIn[i].PreviousOutPoint
	if in.NonWitnessUTXO != nil {
		if int(op.Index) >= len(in.NonWitnessUTXO.TxOut) {
			return nil, false
		}
		if TxID(in.NonWitnessUTXO) != op.Hash {
			return nil, false
		}
		return in.NonWitnessUTXO.TxOut[op.Index], true
	}
	if in.WitnessUTXO != nil && !nullTxOut(in.WitnessUTXO) {
		return in.WitnessUTXO, true
	}
	return nil, false
}

// nullTxOut is Core's CTxOut::IsNull: an amount of -1.
func nullTxOut(o *wire.TxOut) bool { return o == nil || o.Value == -1 }

// IsFinalized reports whether the input holds a final scriptSig or witness
// (Core's PSBTInputSigned).
func (in *Input) IsFinalized() bool {
	return len(in.FinalScriptSig) > 0 || len(in.FinalScriptWitness) > 0
}

// IsNull is Core's PSBTInput::IsNull.
func (in *Input) IsNull() bool {
	return in.NonWitnessUTXO == nil && nullTxOut(in.WitnessUTXO) && len(in.PartialSigs) == 0 &&
		len(in.Unknown) == 0 && len(in.BIP32Derivs) == 0 && len(in.RedeemScript) == 0 &&
		len(in.WitnessScript) == 0
}

// ProprietaryKey splits a proprietary key into its identifier, subtype and
// key data.
func ProprietaryKey(key []byte) (identifier []byte, subtype uint64, keyData []byte, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, isFail := r.(failure); !isFail {
				panic(r)
			}
			ok = false
		}
	}()
	s := newKeyStream(key)
	s.compactSize()
	identifier = s.bytes()
	subtype = s.compactSize()
	return identifier, subtype, key[s.off:], true
}
