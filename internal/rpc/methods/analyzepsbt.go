package methods

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/psbt"
)

// PSBT roles as Core names them (PSBTRoleName), in Core's order.
var psbtRoles = []string{"creator", "updater", "signer", "finalizer", "extractor"}

const (
	roleCreator = iota
	roleUpdater
	roleSigner
	roleFinalizer
	roleExtractor
)

// analyzeInputJSON is one input of analyzepsbt's reply.
type analyzeInputJSON struct {
	HasUTXO bool         `json:"has_utxo"`
	IsFinal bool         `json:"is_final"`
	Next    string       `json:"next"`
	Missing *missingJSON `json:"missing,omitempty"`
}

type missingJSON struct {
	PubKeys       []string `json:"pubkeys,omitempty"`
	RedeemScript  string   `json:"redeemscript,omitempty"`
	WitnessScript string   `json:"witnessscript,omitempty"`
	Signatures    []string `json:"signatures,omitempty"`
}

// analyzeResult is analyzepsbt's reply in Core's field order.
type analyzeResult struct {
	Inputs           []analyzeInputJSON `json:"inputs,omitempty"`
	EstimatedVSize   *int64             `json:"estimated_vsize,omitempty"`
	EstimatedFeeRate *rpc.Amount        `json:"estimated_feerate,omitempty"`
	Fee              *rpc.Amount        `json:"fee,omitempty"`
	Next             string             `json:"next"`
	Error            string             `json:"error,omitempty"`
}

// bytesPerSigOp is Core's default -bytespersigop.
const bytesPerSigOp = 20

// newAnalyzePSBT returns the analyzepsbt method.
func newAnalyzePSBT(_ *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "analyzepsbt",
		Category: "rawtransactions",
		Description: "Analyzes a PSBT: for each input whether its UTXO is known, whether it is final and what it lacks;\n" +
			"the fee, the estimated size and fee rate of the final transaction, and the role that should act next.",
		Params: []rpc.Param{
			{Name: "psbt", Type: rpc.TypeString, Description: "The PSBT, base64."},
		},
		Result: "{                                  (json object)\n" +
			"  \"inputs\" : [ ... ],                (json array, optional) Per input: has_utxo, is_final, next, missing\n" +
			"  \"estimated_vsize\" : n,             (numeric, optional) Estimated vsize of the final transaction\n" +
			"  \"estimated_feerate\" : n,           (numeric, optional) Estimated fee rate in BTC/kvB\n" +
			"  \"fee\" : n,                         (numeric, optional) The fee in BTC, when every UTXO is known\n" +
			"  \"next\" : \"str\",                    (string) The role of the next step\n" +
			"  \"error\" : \"str\"                    (string, optional) Why the PSBT is invalid\n" +
			"}",
		Examples: []string{`"psbt"`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			p, err := decodePSBTArg(s)
			if err != nil {
				return nil, err
			}
			return analyzePSBT(p), nil
		},
	}
}

func invalidPSBT(msg string) *analyzeResult {
	return &analyzeResult{Next: psbtRoles[roleCreator], Error: msg}
}

// analyzePSBT is Core's AnalyzePSBT.
func analyzePSBT(p *psbt.Packet) *analyzeResult {
	var inAmt rpc.Amount
	calcFee := true
	hasUTXO := make([]bool, len(p.Inputs))
	for i := range p.Inputs {
		in := &p.Inputs[i]
		u, ok := p.UTXO(i)
		if ok {
			v := rpc.Amount(u.Value)
			if !v.MoneyRange() || !(inAmt + v).MoneyRange() {
				return invalidPSBT(fmt.Sprintf("PSBT is not valid. Input %d has invalid value", i))
			}
			inAmt += v
			hasUTXO[i] = true
			if isUnspendable(u.PkScript) {
				return invalidPSBT(fmt.Sprintf("PSBT is not valid. Input %d spends unspendable output", i))
			}
		} else {
			if in.NonWitnessUTXO != nil && int(p.UnsignedTx.TxIn[i].PreviousOutPoint.Index) >= len(in.NonWitnessUTXO.TxOut) {
				return invalidPSBT(fmt.Sprintf("PSBT is not valid. Input %d specifies invalid prevout", i))
			}
			calcFee = false
		}
	}
	var outAmt rpc.Amount
	if calcFee {
		for _, o := range p.UnsignedTx.TxOut {
			v := rpc.Amount(o.Value)
			if !outAmt.MoneyRange() || !v.MoneyRange() || !(outAmt + v).MoneyRange() {
				outAmt = -1
				break
			}
			outAmt += v
		}
		if !outAmt.MoneyRange() {
			return invalidPSBT("PSBT is not valid. Output amount invalid")
		}
	}

	q := p.Clone()
	analysis, final := sign.AnalyzeInputs(q, calcFee)
	res := &analyzeResult{}
	next := roleExtractor
	for i, a := range analysis {
		j := analyzeInputJSON{HasUTXO: hasUTXO[i]}
		role := roleExtractor
		if !hasUTXO[i] {
			role = roleUpdater
		}
		switch {
		case !a.Final && a.Complete:
			role = roleFinalizer
		case !a.Final:
			j.Missing = missingOf(a.Missing)
			role = roleUpdater
			if onlySigsMissing(a.Missing) {
				role = roleSigner
			}
		case hasUTXO[i]:
			j.IsFinal = true
		}
		j.Next = psbtRoles[role]
		next = min(next, role)
		res.Inputs = append(res.Inputs, j)
	}
	res.Next = psbtRoles[next]
	if calcFee {
		fee := inAmt - outAmt
		res.Fee = &fee
		if final != nil {
			vsize := virtualSize(final, p)
			res.EstimatedVSize = &vsize
			rate := rpc.Amount(floorDiv(int64(fee)*1000, vsize))
			res.EstimatedFeeRate = &rate
		}
	}
	return res
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func onlySigsMissing(m sign.MissingData) bool {
	return len(m.PubKeys) == 0 && m.RedeemScript == [20]byte{} && m.WitnessScript == [32]byte{} && len(m.Sigs) > 0
}

func missingOf(m sign.MissingData) *missingJSON {
	var j missingJSON
	for _, id := range m.PubKeys {
		j.PubKeys = append(j.PubKeys, hex.EncodeToString(id[:]))
	}
	if m.RedeemScript != ([20]byte{}) {
		j.RedeemScript = hex.EncodeToString(m.RedeemScript[:])
	}
	if m.WitnessScript != ([32]byte{}) {
		j.WitnessScript = hex.EncodeToString(m.WitnessScript[:])
	}
	for _, id := range m.Sigs {
		j.Signatures = append(j.Signatures, hex.EncodeToString(id[:]))
	}
	if j.PubKeys == nil && j.RedeemScript == "" && j.WitnessScript == "" && j.Signatures == nil {
		return nil
	}
	return &j
}

// isUnspendable is Core's CScript::IsUnspendable.
func isUnspendable(pk []byte) bool {
	return len(pk) > 0 && pk[0] == txscript.OP_RETURN || len(pk) > txscript.MaxScriptSize
}

// virtualSize is Core's GetVirtualTransactionSize with the transaction's
// signature-operation cost (GetTransactionSigOpCost) and -bytespersigop.
func virtualSize(tx *wire.MsgTx, p *psbt.Packet) int64 {
	weight := int64(tx.SerializeSizeStripped()*3 + tx.SerializeSize())
	var legacy int64
	for _, in := range tx.TxIn {
		legacy += int64(txscript.GetSigOpCount(in.SignatureScript))
	}
	for _, o := range tx.TxOut {
		legacy += int64(txscript.GetSigOpCount(o.PkScript))
	}
	cost := legacy * 4
	for i, in := range tx.TxIn {
		u, _ := p.UTXO(i)
		if u == nil {
			continue
		}
		cost += int64(txscript.GetPreciseSigOpCount(in.SignatureScript, u.PkScript, true)) * 4
		cost += int64(txscript.GetWitnessSigOpCount(in.SignatureScript, u.PkScript, in.Witness))
	}
	return (max(weight, cost*bytesPerSigOp) + 3) / 4
}
