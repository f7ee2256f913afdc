package address

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/address/bech32"
	"github.com/descwallet/descwallet/internal/script"
)

// anchorProgram is the witness v1 program of pay-to-anchor outputs.
var anchorProgram = []byte{0x4e, 0x73}

// Decode returns the scriptPubKey an address pays to on net, or an *Error
// whose message is the one Core's DecodeDestination gives for it.
//
// Precedence follows Core: a string whose first len(HRP) characters equal
// the network's Bech32 HRP, ignoring case, is decoded as Bech32 and
// nothing else; any other string as Base58Check (P2PKH and P2SH prefixes of
// net only).
func Decode(s string, net *chaincfg.Params) ([]byte, error) {
	hrp := net.Bech32HRPSegwit
	head := s
	if len(head) > len(hrp) {
		head = head[:len(hrp)]
	}
	if asciiLower(head) != hrp {
		return decodeBase58Address(s, net)
	}
	return decodeSegwitAddress(s, hrp)
}

func decodeBase58Address(s string, net *chaincfg.Params) ([]byte, error) {
	payload, ok := decodeBase58Check(s, 21)
	if !ok {
		// Try Base58 without a checksum and with a larger limit, only to
		// choose the message.
		if _, ok := decodeBase58(s, 100); ok {
			return nil, newError(ErrBase58Checksum,
				"Invalid checksum or length of Base58 address (P2PKH or P2SH)")
		}
		return nil, newError(ErrUnsupportedEncoding,
			"Invalid or unsupported Segwit (Bech32) or Base58 encoding.")
	}
	if len(payload) == 21 {
		switch payload[0] {
		case net.PubKeyHashAddrID:
			return script.PayToPubKeyHash(payload[1:]), nil
		case net.ScriptHashAddrID:
			return script.PayToScriptHash(payload[1:]), nil
		}
	}
	if len(payload) >= 1 && (payload[0] == net.PubKeyHashAddrID ||
		payload[0] == net.ScriptHashAddrID) {
		return nil, newError(ErrBase58Length,
			"Invalid length for Base58 address (P2PKH or P2SH)")
	}
	return nil, newError(ErrBase58Prefix,
		"Invalid or unsupported Base58-encoded address.")
}

func decodeSegwitAddress(s, hrp string) ([]byte, error) {
	enc, gotHRP, data, err := bech32.Decode(s)
	if err != nil {
		be := err.(*bech32.Error)
		if be.Description == "" {
			return nil, newError(ErrInvalid, "Invalid address")
		}
		return nil, &Error{kindError: kindError{Kind: ErrBech32, Description: be.Description, Err: be},
			Locations: be.Locations}
	}
	if len(data) == 0 {
		return nil, newError(ErrEmptyData, "Empty Bech32 data section")
	}
	if gotHRP != hrp {
		return nil, newError(ErrWrongPrefix, fmt.Sprintf(
			"Invalid or unsupported prefix for Segwit (Bech32) address (expected %s, got %s).",
			hrp, gotHRP))
	}
	version := int(data[0])
	if version == 0 && enc != bech32.Bech32 {
		return nil, newError(ErrV0NeedsBech32,
			"Version 0 witness address must use Bech32 checksum")
	}
	if version != 0 && enc != bech32.Bech32m {
		return nil, newError(ErrV1NeedsBech32m,
			"Version 1+ witness address must use Bech32m checksum")
	}
	program, ok := bech32.ConvertBits(data[1:], 5, 8, false)
	if !ok {
		return nil, newError(ErrPadding, "Invalid padding in Bech32 data section")
	}
	unit := "bytes"
	if len(program) == 1 {
		unit = "byte"
	}
	switch {
	case version == 0 && (len(program) == 20 || len(program) == 32):
		return script.PayToWitness(0, program), nil
	case version == 0:
		return nil, newError(ErrV0ProgramSize, fmt.Sprintf(
			"Invalid Bech32 v0 address program size (%d %s), per BIP141",
			len(program), unit))
	case version == 1 && len(program) == 32:
		return script.PayToTaproot(program), nil
	case version == 1 && bytes.Equal(program, anchorProgram):
		return script.PayToAnchor(), nil
	case version > 16:
		return nil, newError(ErrWitnessVersion,
			"Invalid Bech32 address witness version")
	case len(program) < 2 || len(program) > 40:
		return nil, newError(ErrProgramSize, fmt.Sprintf(
			"Invalid Bech32 address program size (%d %s)", len(program), unit))
	}
	return script.PayToWitness(version, program), nil
}

// Encode returns the address of a scriptPubKey on net, as Core's
// ExtractDestination and EncodeDestination give it: Base58Check for P2PKH
// and P2SH, Bech32 for witness version 0, Bech32m for taproot, pay-to-anchor
// and every other witness version. Bare public keys, bare multisig,
// OP_RETURN and nonstandard scripts have no address (false).
func Encode(spk []byte, net *chaincfg.Params) (string, bool) {
	class, sol := script.Solve(spk)
	switch class {
	case script.PubKeyHash:
		return encodeBase58Check(append([]byte{net.PubKeyHashAddrID}, sol[0]...)), true
	case script.ScriptHash:
		return encodeBase58Check(append([]byte{net.ScriptHashAddrID}, sol[0]...)), true
	case script.WitnessV0KeyHash, script.WitnessV0ScriptHash:
		return encodeSegwit(net.Bech32HRPSegwit, 0, sol[0]), true
	case script.WitnessV1Taproot:
		return encodeSegwit(net.Bech32HRPSegwit, 1, sol[0]), true
	case script.Anchor:
		return encodeSegwit(net.Bech32HRPSegwit, 1, anchorProgram), true
	case script.WitnessUnknown:
		return encodeSegwit(net.Bech32HRPSegwit, int(sol[0][0]), sol[1]), true
	}
	return "", false
}

func encodeSegwit(hrp string, version int, program []byte) string {
	data, _ := bech32.ConvertBits(program, 8, 5, true)
	data = append([]byte{byte(version)}, data...)
	enc := bech32.Bech32m
	if version == 0 {
		enc = bech32.Bech32
	}
	return bech32.Encode(enc, hrp, data)
}

// Description holds the fields Core's DescribeAddress adds to
// validateaddress and getaddressinfo results for a destination, with Core's
// presence rules encoded as nil/empty values (the JSON tags give Core's
// names, order and omissions):
//
//	P2PKH, P2SH          isscript, iswitness
//	P2WPKH, P2WSH, P2TR  isscript, iswitness, witness_version, witness_program
//	pay-to-anchor        isscript (true), iswitness (true)
//	other witness        iswitness, witness_version, witness_program
type Description struct {
	IsScript       *bool  `json:"isscript,omitempty"`
	IsWitness      bool   `json:"iswitness"`
	WitnessVersion *int   `json:"witness_version,omitempty"`
	WitnessProgram string `json:"witness_program,omitempty"`
}

// Describe returns the Description of the destination of a scriptPubKey,
// and false when the script has no address (see Encode).
func Describe(spk []byte) (Description, bool) {
	t, f := true, false
	class, sol := script.Solve(spk)
	witness := func(isScript *bool, version int, program []byte) Description {
		return Description{IsScript: isScript, IsWitness: true,
			WitnessVersion: &version, WitnessProgram: hex.EncodeToString(program)}
	}
	switch class {
	case script.PubKeyHash:
		return Description{IsScript: &f}, true
	case script.ScriptHash:
		return Description{IsScript: &t}, true
	case script.WitnessV0KeyHash:
		return witness(&f, 0, sol[0]), true
	case script.WitnessV0ScriptHash:
		return witness(&t, 0, sol[0]), true
	case script.WitnessV1Taproot:
		return witness(&t, 1, sol[0]), true
	case script.Anchor:
		return Description{IsScript: &t, IsWitness: true}, true
	case script.WitnessUnknown:
		return witness(nil, int(sol[0][0]), sol[1]), true
	}
	return Description{}, false
}

// asciiLower lower-cases ASCII letters only, leaving every other byte as it
// is (Core's ToLower).
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
