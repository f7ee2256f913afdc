package descriptor

import (
	"crypto/hmac"
	"crypto/sha512"
	"encoding/binary"
	"hash"
	"sync"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/base58"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/secp"
)

// KeyID is the HASH160 of a serialized public key, Core's CKeyID.
type KeyID [20]byte

// hardenedFlag marks a hardened BIP 32 child index.
const hardenedFlag = uint32(1) << 31

// extKey is a BIP 32 extended key, public or private.
type extKey struct {
	depth    uint8
	parentFP [4]byte
	child    uint32
	chain    [32]byte
	pub      [33]byte
	priv     *[32]byte
}

// fingerprint is the first four bytes of the HASH160 of the public key.
func (k *extKey) fingerprint() [4]byte {
	h := script.Hash160(k.pub[:])
	return [4]byte{h[0], h[1], h[2], h[3]}
}

// neuter returns the public part of k.
func (k *extKey) neuter() *extKey {
	c := *k
	c.priv = nil
	return &c
}

func (k *extKey) serialize(version [4]byte) string {
	b := make([]byte, 0, 82)
	b = append(b, version[:]...)
	b = append(b, k.depth)
	b = append(b, k.parentFP[:]...)
	b = binary.BigEndian.AppendUint32(b, k.child)
	b = append(b, k.chain[:]...)
	if k.priv != nil {
		b = append(b, 0)
		b = append(b, k.priv[:]...)
	} else {
		b = append(b, k.pub[:]...)
	}
	if k.priv != nil {
		s := base58.EncodeCheckSecret(b)
		clear(b)
		return s
	}
	return base58.EncodeCheck(b)
}

func (k *extKey) xpub(net *chaincfg.Params) string {
	return k.neuter().serialize(net.HDPublicKeyID)
}

func (k *extKey) xprv(net *chaincfg.Params) string {
	return k.serialize(net.HDPrivateKeyID)
}

// decodeBase58Check decodes s, a string that may carry a private key, and
// checks its four-byte checksum and that the payload is at most maxLen
// bytes, with the same work whatever the key (base58.DecodeCheckSecret).
// The caller clears the payload.
func decodeBase58Check(s string, maxLen int) ([]byte, bool) {
	return base58.DecodeCheckSecret(s, maxLen)
}

// decodeExtKey parses an xpub or xprv of the network with Core's strict
// rules: the version must be the network's, a depth-0 key must have a zero
// parent fingerprint and child number, a private key must be in [1, n-1]
// after a zero pad byte, and a public key must be a valid compressed point.
func decodeExtKey(s string, net *chaincfg.Params) (*extKey, bool) {
	if len(s) > 200 {
		return nil, false
	}
	b, ok := decodeBase58Check(s, 78)
	defer clear(b)
	if !ok || len(b) != 78 {
		return nil, false
	}
	var version [4]byte
	copy(version[:], b[:4])
	isPriv := version == net.HDPrivateKeyID
	if !isPriv && version != net.HDPublicKeyID {
		return nil, false
	}
	k := &extKey{depth: b[4], child: binary.BigEndian.Uint32(b[9:13])}
	copy(k.parentFP[:], b[5:9])
	copy(k.chain[:], b[13:45])
	if k.depth == 0 && (k.child != 0 || k.parentFP != [4]byte{}) {
		return nil, false
	}
	keyData := b[45:78]
	if isPriv {
		if keyData[0] != 0 {
			return nil, false
		}
		var priv [32]byte
		copy(priv[:], keyData[1:])
		pub, ok := privToPub(&priv)
		if !ok {
			return nil, false
		}
		k.priv = &priv
		copy(k.pub[:], pub)
		return k, true
	}
	if keyData[0] != 2 && keyData[0] != 3 {
		return nil, false
	}
	if _, err := btcec.ParsePubKey(keyData); err != nil {
		return nil, false
	}
	copy(k.pub[:], keyData)
	return k, true
}

// privToPub returns the compressed public key of a private key, and false when
// the key is 0 or not below the group order.
func privToPub(priv *[32]byte) ([]byte, bool) {
	p, ok := privPubKey(priv)
	if !ok {
		return nil, false
	}
	return p.SerializeCompressed(), true
}

// privPubKey returns the public key of a private key, and false when the
// key is 0 or not below the group order, in constant time: k·G by
// secp.ScalarBaseMultConst (the library's ScalarBaseMultNonConst indexes a
// table by the key's bytes), brought to affine form with the library's
// constant-time inversion (the variable-time secp.ToAffine is for public
// points only).
func privPubKey(priv *[32]byte) (*btcec.PublicKey, bool) {
	var s btcec.ModNScalar
	defer s.Zero()
	if overflow := s.SetBytes(priv); overflow != 0 || s.IsZero() {
		return nil, false
	}
	var p btcec.JacobianPoint
	secp.ScalarBaseMultConst(&s, &p)
	p.ToAffine()
	return btcec.NewPublicKey(&p.X, &p.Y), true
}

// wifKey is a decoded WIF private key.
type wifKey struct {
	priv       [32]byte
	compressed bool
}

// pubKey returns the serialized public key, compressed or not as the WIF
// says (decodeWIF has checked the key is valid).
func (w *wifKey) pubKey() []byte {
	pub, _ := privPubKey(&w.priv)
	if w.compressed {
		return pub.SerializeCompressed()
	}
	return pub.SerializeUncompressed()
}

// decodeWIF parses a WIF private key of the network.
func decodeWIF(s string, net *chaincfg.Params) (*wifKey, bool) {
	if len(s) > 100 {
		return nil, false
	}
	b, ok := decodeBase58Check(s, 34)
	defer clear(b)
	if !ok || len(b) < 1 || b[0] != net.PrivateKeyID {
		return nil, false
	}
	b = b[1:]
	w := &wifKey{}
	switch {
	case len(b) == 32:
	case len(b) == 33 && b[32] == 1:
		w.compressed = true
	default:
		return nil, false
	}
	copy(w.priv[:], b[:32])
	var sc btcec.ModNScalar
	if overflow := sc.SetBytes(&w.priv); overflow != 0 || sc.IsZero() {
		return nil, false
	}
	return w, true
}

// encodeWIF prints a private key as WIF for the network.
func encodeWIF(priv []byte, compressed bool, net *chaincfg.Params) string {
	b := make([]byte, 0, 38)
	b = append(b, net.PrivateKeyID)
	b = append(b, priv...)
	if compressed {
		b = append(b, 1)
	}
	s := base58.EncodeCheckSecret(b)
	clear(b)
	return s
}

// deriveChild derives child i of k. A hardened child needs the private key.
func (k *extKey) deriveChild(i uint32) (*extKey, error) {
	if k.depth == 255 {
		return nil, makeError(ErrDerivation, "derivation beyond depth 255")
	}
	hardened := i&hardenedFlag != 0
	if hardened && k.priv == nil {
		return nil, errHardened
	}
	if k.priv != nil {
		return k.privChild(i)
	}
	return k.pubChild(i)
}

// privChild derives child i of the private extended key k, with its public
// key, in constant time (the library's arithmetic, its constant-time
// inversion and secp.ScalarBaseMultConst); the buffers that held the parent's or the child's secret are
// cleared.
func (k *extKey) privChild(i uint32) (*extKey, error) {
	priv, ilr, err := childPrivKey(k, i)
	defer clear(ilr[:])
	if err != nil {
		return nil, err
	}
	child := &extKey{depth: k.depth + 1, parentFP: k.fingerprint(), child: i}
	copy(child.chain[:], ilr[32:])
	child.priv = priv
	pub, _ := privToPub(priv)
	copy(child.pub[:], pub)
	return child, nil
}

// pubChild derives the unhardened child i of the public extended key k:
// public data, so the fast variable-time inversion serves.
func (k *extKey) pubChild(i uint32) (*extKey, error) {
	var data [37]byte
	copy(data[:33], k.pub[:])
	binary.BigEndian.PutUint32(data[33:], i)
	mac := hmac.New(sha512.New, k.chain[:])
	mac.Write(data[:])
	var ilr [64]byte
	mac.Sum(ilr[:0])
	var il btcec.ModNScalar
	if overflow := il.SetByteSlice(ilr[:32]); overflow {
		return nil, errInvalidChild
	}
	child := &extKey{depth: k.depth + 1, parentFP: k.fingerprint(), child: i}
	copy(child.chain[:], ilr[32:])
	parent, err := btcec.ParsePubKey(k.pub[:])
	if err != nil {
		return nil, errInvalidChild
	}
	var pj, ij, cj btcec.JacobianPoint
	parent.AsJacobian(&pj)
	btcec.ScalarBaseMultNonConst(&il, &ij)
	btcec.AddNonConst(&ij, &pj, &cj)
	if (cj.X.IsZero() && cj.Y.IsZero()) || !secp.ToAffine(&cj) {
		return nil, errInvalidChild
	}
	copy(child.pub[:], btcec.NewPublicKey(&cj.X, &cj.Y).SerializeCompressed())
	return child, nil
}

// derivePath derives every step of path from k, remembering the extended key
// after the last hardened step (nil if there is none).
func (k *extKey) derivePath(path []uint32) (final, lastHardened *extKey, err error) {
	cur := k
	for _, step := range path {
		cur, err = cur.deriveChild(step)
		if err != nil {
			return nil, nil, err
		}
		if step&hardenedFlag != 0 {
			lastHardened = cur
		}
	}
	return cur, lastHardened, nil
}

var (
	errHardened     = makeError(ErrHardenedFromPublic, "Cannot derive script without private keys")
	errInvalidChild = makeError(ErrDerivation, "invalid BIP 32 child key")
)

// pubDeriver derives unhardened children of one public parent quickly: the
// parent point stays decompressed and the HMAC keyed by its chain code is
// reused, so a child costs one HMAC, one scalar base multiplication, one
// point addition and one (checked, fast) field inversion.
type pubDeriver struct {
	parent extKey
	point  btcec.JacobianPoint // affine (Z = 1)
	fp     [4]byte
	macs   sync.Pool // of *macState
}

// macState is an HMAC-SHA512 keyed by the parent's chain code with its
// input and output buffers, pooled together so that a derivation, writing
// through the hash.Hash interface, allocates none of them.
type macState struct {
	mac  hash.Hash
	data [37]byte
	ilr  [64]byte
}

func newPubDeriver(parent *extKey) (*pubDeriver, error) {
	p, err := btcec.ParsePubKey(parent.pub[:])
	if err != nil {
		return nil, makeError(ErrCache, "invalid parent public key")
	}
	d := &pubDeriver{parent: *parent.neuter(), fp: parent.fingerprint()}
	p.AsJacobian(&d.point)
	chain := d.parent.chain
	d.macs.New = func() any { return &macState{mac: hmac.New(sha512.New, chain[:])} }
	return d, nil
}

// child derives the unhardened child i, writing its compressed public key
// to pub and, when chain is not nil, its chain code.
func (d *pubDeriver) child(i uint32, pub *[33]byte, chain *[32]byte) error {
	if i&hardenedFlag != 0 {
		return errHardened
	}
	m := d.macs.Get().(*macState)
	copy(m.data[:33], d.parent.pub[:])
	binary.BigEndian.PutUint32(m.data[33:], i)
	m.mac.Reset()
	m.mac.Write(m.data[:])
	m.mac.Sum(m.ilr[:0])
	var il btcec.ModNScalar
	overflow := il.SetByteSlice(m.ilr[:32])
	if chain != nil {
		copy(chain[:], m.ilr[32:])
	}
	d.macs.Put(m)
	if overflow {
		return errInvalidChild
	}
	var ij, cj btcec.JacobianPoint
	btcec.ScalarBaseMultNonConst(&il, &ij)
	btcec.AddNonConst(&ij, &d.point, &cj)
	if (cj.X.IsZero() && cj.Y.IsZero()) || !secp.ToAffine(&cj) {
		return errInvalidChild
	}
	pub[0] = 2
	if cj.Y.IsOdd() {
		pub[0] = 3
	}
	cj.X.PutBytesUnchecked(pub[1:])
	return nil
}

// childKey derives the full extended child key i.
func (d *pubDeriver) childKey(i uint32) (*extKey, error) {
	c := &extKey{depth: d.parent.depth + 1, parentFP: d.fp, child: i}
	if d.parent.depth == 255 {
		return nil, makeError(ErrDerivation, "derivation beyond depth 255")
	}
	if err := d.child(i, &c.pub, &c.chain); err != nil {
		return nil, err
	}
	return c, nil
}

// Public key checks mirroring Core's CPubKey.

// pubKeyLenForHeader is the serialized length implied by the first byte.
func pubKeyLenForHeader(h byte) int {
	switch h {
	case 2, 3:
		return 33
	case 4, 6, 7:
		return 65
	}
	return 0
}

// pubKeyShapeValid is Core's CPubKey::IsValid: the length matches the header.
func pubKeyShapeValid(b []byte) bool {
	return len(b) > 0 && pubKeyLenForHeader(b[0]) == len(b)
}

// pubKeyNonHybrid is Core's IsValidNonHybrid.
func pubKeyNonHybrid(b []byte) bool {
	return pubKeyShapeValid(b) && (b[0] == 2 || b[0] == 3 || b[0] == 4)
}

// pubKeyFullyValid is Core's IsFullyValid: a point on the curve.
func pubKeyFullyValid(b []byte) bool {
	if !pubKeyShapeValid(b) {
		return false
	}
	_, err := btcec.ParsePubKey(b)
	return err == nil
}

// xonlyToFull returns 02||x, and whether that is a point on the curve.
func xonlyToFull(x []byte) ([]byte, bool) {
	full := append([]byte{2}, x...)
	return full, pubKeyFullyValid(full)
}

// deriveChildPriv derives the private key of child i of the private key p
// without computing the child's public key.
func deriveChildPriv(p *extKey, i uint32) (*[32]byte, error) {
	priv, ilr, err := childPrivKey(p, i)
	clear(ilr[:])
	return priv, err
}

// childPrivKey is BIP 32's CKDpriv for the private extended key p: the
// child's private key k_p + IL (mod n) and the HMAC output IL || IR, whose
// right half is the child's chain code (the caller clears it). The HMAC
// input, which holds the parent's private key for a hardened child, and
// the scalars are cleared.
func childPrivKey(p *extKey, i uint32) (*[32]byte, *[64]byte, error) {
	var data [37]byte
	defer clear(data[:])
	if i&hardenedFlag != 0 {
		copy(data[1:33], p.priv[:])
	} else {
		copy(data[:33], p.pub[:])
	}
	binary.BigEndian.PutUint32(data[33:], i)
	mac := hmac.New(sha512.New, p.chain[:])
	mac.Write(data[:])
	ilr := new([64]byte)
	mac.Sum(ilr[:0])
	mac.Reset()
	var il, kp btcec.ModNScalar
	defer il.Zero()
	defer kp.Zero()
	if overflow := il.SetByteSlice(ilr[:32]); overflow {
		return nil, ilr, errInvalidChild
	}
	kp.SetBytes(p.priv)
	kp.Add(&il)
	if kp.IsZero() {
		return nil, ilr, errInvalidChild
	}
	out := new([32]byte)
	kp.PutBytes(out)
	return out, ilr, nil
}

// MasterXprv returns the BIP 32 master extended private key of seed (16
// to 64 bytes) as an xprv string of the network, and false when the seed
// is out of range or gives an unusable key (probability about 2^-127).
// It runs in constant time on the seed: HMAC-SHA512, the library's scalar
// arithmetic, secp.ScalarBaseMultConst and the fixed-work Base58 encoder
// (hdkeychain divides with math/big).
func MasterXprv(seed []byte, net *chaincfg.Params) (string, bool) {
	if len(seed) < 16 || len(seed) > 64 {
		return "", false
	}
	mac := hmac.New(sha512.New, []byte("Bitcoin seed"))
	mac.Write(seed)
	var ilr [64]byte
	mac.Sum(ilr[:0])
	mac.Reset()
	defer clear(ilr[:])
	k := &extKey{priv: new([32]byte)}
	defer clear(k.priv[:])
	copy(k.priv[:], ilr[:32])
	copy(k.chain[:], ilr[32:])
	pub, ok := privToPub(k.priv)
	if !ok {
		return "", false
	}
	copy(k.pub[:], pub)
	return k.xprv(net), true
}
