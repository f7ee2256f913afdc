package sign

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"strings"

	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/script"
)

// messageMagic prefixes every signed message (Core's MESSAGE_MAGIC).
const messageMagic = "Bitcoin Signed Message:\n"

// MessageHash is Core's MessageHash: the double SHA-256 of the magic and
// the message, each written with its compact-size length.
func MessageHash(message string) [32]byte {
	var b bytes.Buffer
	b.Grow(len(messageMagic) + len(message) + 10)
	_ = wire.WriteVarString(&b, 0, messageMagic)
	_ = wire.WriteVarString(&b, 0, message)
	first := sha256.Sum256(b.Bytes())
	return sha256.Sum256(first[:])
}

// SignMessage signs a message as Core's MessageSign does: a 65-byte
// compact recoverable ECDSA signature (RFC 6979 nonce, no grinding) of
// MessageHash, whose header tells whether the key's public form is
// compressed, in base64. The signature is checked as Core's
// CKey::SignCompact checks it, by recovering the key from it with the
// library before it is returned.
func SignMessage(k *Key, message string) (string, error) {
	return signMessage(k, message, nil)
}

// signMessage is SignMessage with the test hooks.
func signMessage(k *Key, message string, f *faults) (string, error) {
	hash := MessageHash(message)
	full := signCompact(&k.priv.Key, hash[:], k.compressed, f)
	sig := full[:]
	f.signature(sig)
	pub, compressed, err := ecdsa.RecoverCompact(sig, hash[:])
	if err != nil || compressed != k.compressed || !pub.IsEqual(k.pub) {
		return "", newError(ErrSignFailed, "Sign failed")
	}
	return base64.StdEncoding.EncodeToString(sig), nil
}

// MessageVerification is the outcome of VerifyMessage, as Core's
// MessageVerificationResult (less the address checks, which the caller
// makes).
type MessageVerification int

// The outcomes of VerifyMessage.
const (
	// MessageOK: the signature recovers the key of the address.
	MessageOK MessageVerification = iota
	// MessageMalformed: the signature is not valid base64.
	MessageMalformed
	// MessageNotRecovered: no public key recovers from the signature.
	MessageNotRecovered
	// MessageNotSigned: the recovered key is not the address's.
	MessageNotSigned
)

// VerifyMessage checks a base64 compact signature of message against the
// HASH160 of a public key (a P2PKH address's), as Core's MessageVerify
// does after decoding the address.
func VerifyMessage(keyHash []byte, signature, message string) MessageVerification {
	sig, ok := decodeBase64(signature)
	if !ok {
		return MessageMalformed
	}
	if len(sig) != 65 {
		return MessageNotRecovered
	}
	// Core reads the header without a range check: the recovery id is
	// (h-27)&3 and the compressed flag (h-27)&4, in int arithmetic.
	h := int(sig[0]) - 27
	norm := append([]byte(nil), sig...)
	norm[0] = byte(27 + h&3)
	if h&4 != 0 {
		norm[0] += 4
	}
	hash := MessageHash(message)
	pub, compressed, err := ecdsa.RecoverCompact(norm, hash[:])
	if err != nil {
		return MessageNotRecovered
	}
	ser := pub.SerializeUncompressed()
	if compressed {
		ser = pub.SerializeCompressed()
	}
	id := script.Hash160(ser)
	if !bytes.Equal(id[:], keyHash) {
		return MessageNotSigned
	}
	return MessageOK
}

// decodeBase64 is Core's DecodeBase64: a length that is a multiple of
// four, at most two '=' at the end, only base64 characters otherwise, and
// zero padding bits.
func decodeBase64(s string) ([]byte, bool) {
	if len(s)%4 != 0 || strings.ContainsAny(s, "\r\n") {
		return nil, false
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	return b, err == nil
}
