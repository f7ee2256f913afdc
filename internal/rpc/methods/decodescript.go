package methods

import (
	"context"
	"crypto/sha256"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
)

// segwitWrapJSON is decodescript's segwit object: the output script of a
// version 0 witness program wrapping the script (ScriptToUniv with hex and
// address) and the address of its P2SH wrapping.
type segwitWrapJSON struct {
	Asm        string  `json:"asm"`
	Desc       *string `json:"desc,omitempty"`
	Hex        *string `json:"hex,omitempty"`
	Address    string  `json:"address,omitempty"`
	Type       string  `json:"type"`
	P2SHSegwit string  `json:"p2sh-segwit"`
}

// decodeScriptResult is decodescript's reply in Core's field order.
type decodeScriptResult struct {
	Asm     string          `json:"asm"`
	Desc    *string         `json:"desc,omitempty"`
	Address string          `json:"address,omitempty"`
	Type    string          `json:"type"`
	P2SH    string          `json:"p2sh,omitempty"`
	Segwit  *segwitWrapJSON `json:"segwit,omitempty"`
}

// newDecodeScript returns the decodescript method.
func newDecodeScript(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "decodescript",
		Category:    "rawtransactions",
		Description: "Shows a hex-encoded script: its asm, inferred descriptor, type and address,\nand the P2SH and segwit wrappings it can be given.",
		Params: []rpc.Param{
			{Name: "hexstring", Type: rpc.TypeHex, Description: "The script, hex-encoded (empty is the empty script)."},
		},
		Result: "{                         (json object)\n" +
			"  \"asm\" : \"str\",           (string) The script's asm\n" +
			"  \"desc\" : \"str\",          (string) The descriptor inferred for the script\n" +
			"  \"address\" : \"str\",       (string, optional) Its address, when it has one\n" +
			"  \"type\" : \"str\",          (string) Its output type\n" +
			"  \"p2sh\" : \"str\",          (string, optional) The address of the P2SH output wrapping it, when it may be wrapped\n" +
			"  \"segwit\" : { ... }       (json object, optional) The P2WPKH or P2WSH output wrapping it: asm, desc, hex, address,\n" +
			"                           type, and p2sh-segwit, the address of that output wrapped in P2SH\n" +
			"}",
		Examples: []string{`"76a914cb3b9c7d7df2ec4406dca987ec45b9eff347dd5188ac"`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			var scr []byte
			if s != "" {
				if scr, err = parseHex(s, "argument"); err != nil {
					return nil, err
				}
			}
			return decodeScript(scr, d.Net), nil
		},
	}
}

// decodeScript builds decodescript's reply with Core's wrapping rules.
func decodeScript(scr []byte, net *chaincfg.Params) *decodeScriptResult {
	base := scriptToJSON(scr, false, true, nil, net)
	r := &decodeScriptResult{Asm: base.Asm, Desc: base.Desc, Address: base.Address, Type: base.Type}
	class, sol := script.Solve(scr)
	if !canWrapP2SH(scr, class) {
		return r
	}
	r.P2SH, _ = address.Encode(p2sh(scr), net)
	if !canWrapP2WSH(class, sol) {
		return r
	}
	provider := descriptor.NewFlatProvider()
	var segwit []byte
	switch class {
	case script.PubKey:
		h := script.Hash160(sol[0])
		segwit = script.PayToWitnessPubKeyHash(h[:])
	case script.PubKeyHash:
		segwit = script.PayToWitnessPubKeyHash(sol[0])
	default:
		provider.AddScript(scr)
		h := sha256.Sum256(scr)
		segwit = script.PayToWitnessScriptHash(h[:])
	}
	w := scriptToJSON(segwit, true, true, provider, net)
	sr := &segwitWrapJSON{Asm: w.Asm, Desc: w.Desc, Hex: w.Hex, Address: w.Address, Type: w.Type}
	sr.P2SHSegwit, _ = address.Encode(p2sh(segwit), net)
	r.Segwit = sr
	return r
}

// canWrapP2SH tells whether decodescript shows a P2SH wrapping: only for
// multisig, nonstandard, pubkey, pubkeyhash and v0 witness scripts whose
// operations are valid, that are spendable and that use neither
// OP_CHECKSIGADD nor an OP_SUCCESS opcode.
func canWrapP2SH(scr []byte, class script.Class) bool {
	switch class {
	case script.Multisig, script.Nonstandard, script.PubKey, script.PubKeyHash,
		script.WitnessV0KeyHash, script.WitnessV0ScriptHash:
	default:
		return false
	}
	if !script.HasValidOps(scr) || script.IsUnspendable(scr) {
		return false
	}
	for pc := 0; pc < len(scr); {
		op, _, next, _ := script.NextOp(scr, pc)
		if op == script.OpCheckSigAdd || isOpSuccess(op) {
			return false
		}
		pc = next
	}
	return true
}

// isOpSuccess is BIP 342's OP_SUCCESSx set (Core's IsOpSuccess).
func isOpSuccess(op byte) bool {
	return op == 80 || op == 98 || (op >= 126 && op <= 129) ||
		(op >= 131 && op <= 134) || (op >= 137 && op <= 138) ||
		(op >= 141 && op <= 142) || (op >= 149 && op <= 153) ||
		(op >= 187 && op <= 254)
}

// canWrapP2WSH tells whether decodescript shows a segwit wrapping: not for
// scripts that are already P2SH or witness programs, nor for multisig and
// pubkey scripts holding an uncompressed key.
func canWrapP2WSH(class script.Class, sol [][]byte) bool {
	switch class {
	case script.Multisig, script.PubKey:
		for _, s := range sol {
			if len(s) != 1 && len(s) != 33 {
				return false
			}
		}
		return true
	case script.Nonstandard, script.PubKeyHash:
		return true
	}
	return false
}
