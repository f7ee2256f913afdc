package methods

import (
	"context"
	"encoding/hex"

	"github.com/btcsuite/btcd/address/v2/base58"
	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/psbt"
)

// decodedPSBT is decodepsbt's reply in Core's field order.
type decodedPSBT struct {
	Tx          *decodedTx        `json:"tx"`
	GlobalXPubs []globalXPubJSON  `json:"global_xpubs"`
	PSBTVersion uint32            `json:"psbt_version"`
	Proprietary []proprietaryJSON `json:"proprietary"`
	Unknown     jsonObject        `json:"unknown"`
	Inputs      []psbtInputJSON   `json:"inputs"`
	Outputs     []psbtOutputJSON  `json:"outputs"`
	Fee         *rpc.Amount       `json:"fee,omitempty"`
}

type globalXPubJSON struct {
	XPub              string `json:"xpub"`
	MasterFingerprint string `json:"master_fingerprint"`
	Path              string `json:"path"`
}

type utxoJSON struct {
	Amount       rpc.Amount `json:"amount"`
	ScriptPubKey scriptJSON `json:"scriptPubKey"`
}

type derivJSON struct {
	PubKey            string `json:"pubkey"`
	MasterFingerprint string `json:"master_fingerprint"`
	Path              string `json:"path"`
}

type tapDerivJSON struct {
	PubKey            string   `json:"pubkey"`
	MasterFingerprint string   `json:"master_fingerprint"`
	Path              string   `json:"path"`
	LeafHashes        []string `json:"leaf_hashes"`
}

type tapScriptSigJSON struct {
	PubKey   string `json:"pubkey"`
	LeafHash string `json:"leaf_hash"`
	Sig      string `json:"sig"`
}

type tapScriptJSON struct {
	Script        string   `json:"script"`
	LeafVer       int      `json:"leaf_ver"`
	ControlBlocks []string `json:"control_blocks"`
}

type musigParticipantsJSON struct {
	AggregatePubKey    string   `json:"aggregate_pubkey"`
	ParticipantPubKeys []string `json:"participant_pubkeys"`
}

type musigNonceJSON struct {
	ParticipantPubKey string `json:"participant_pubkey"`
	AggregatePubKey   string `json:"aggregate_pubkey"`
	LeafHash          string `json:"leaf_hash,omitempty"`
	PubNonce          string `json:"pubnonce"`
}

type musigPartialSigJSON struct {
	ParticipantPubKey string `json:"participant_pubkey"`
	AggregatePubKey   string `json:"aggregate_pubkey"`
	LeafHash          string `json:"leaf_hash,omitempty"`
	PartialSig        string `json:"partial_sig"`
}

type tapTreeLeafJSON struct {
	Depth   int    `json:"depth"`
	LeafVer int    `json:"leaf_ver"`
	Script  string `json:"script"`
}

// psbtInputJSON is one decoded input map in Core's field order.
type psbtInputJSON struct {
	WitnessUTXO        *utxoJSON               `json:"witness_utxo,omitempty"`
	NonWitnessUTXO     *decodedTx              `json:"non_witness_utxo,omitempty"`
	PartialSignatures  jsonObject              `json:"partial_signatures,omitempty"`
	Sighash            *string                 `json:"sighash,omitempty"`
	RedeemScript       *scriptJSON             `json:"redeem_script,omitempty"`
	WitnessScript      *scriptJSON             `json:"witness_script,omitempty"`
	BIP32Derivs        []derivJSON             `json:"bip32_derivs,omitempty"`
	FinalScriptSig     *scriptSigJSON          `json:"final_scriptSig,omitempty"`
	FinalScriptWitness []string                `json:"final_scriptwitness,omitempty"`
	RIPEMD160          jsonObject              `json:"ripemd160_preimages,omitempty"`
	SHA256             jsonObject              `json:"sha256_preimages,omitempty"`
	HASH160            jsonObject              `json:"hash160_preimages,omitempty"`
	HASH256            jsonObject              `json:"hash256_preimages,omitempty"`
	TapKeySig          string                  `json:"taproot_key_path_sig,omitempty"`
	TapScriptSigs      []tapScriptSigJSON      `json:"taproot_script_path_sigs,omitempty"`
	TapScripts         []tapScriptJSON         `json:"taproot_scripts,omitempty"`
	TapBIP32Derivs     []tapDerivJSON          `json:"taproot_bip32_derivs,omitempty"`
	TapInternalKey     string                  `json:"taproot_internal_key,omitempty"`
	TapMerkleRoot      string                  `json:"taproot_merkle_root,omitempty"`
	MuSig2Participants []musigParticipantsJSON `json:"musig2_participant_pubkeys,omitempty"`
	MuSig2PubNonces    []musigNonceJSON        `json:"musig2_pubnonces,omitempty"`
	MuSig2PartialSigs  []musigPartialSigJSON   `json:"musig2_partial_sigs,omitempty"`
	Proprietary        []proprietaryJSON       `json:"proprietary,omitempty"`
	Unknown            jsonObject              `json:"unknown,omitempty"`
}

// psbtOutputJSON is one decoded output map in Core's field order.
type psbtOutputJSON struct {
	RedeemScript       *scriptJSON             `json:"redeem_script,omitempty"`
	WitnessScript      *scriptJSON             `json:"witness_script,omitempty"`
	BIP32Derivs        []derivJSON             `json:"bip32_derivs,omitempty"`
	TapInternalKey     string                  `json:"taproot_internal_key,omitempty"`
	TapTree            []tapTreeLeafJSON       `json:"taproot_tree,omitempty"`
	TapBIP32Derivs     []tapDerivJSON          `json:"taproot_bip32_derivs,omitempty"`
	MuSig2Participants []musigParticipantsJSON `json:"musig2_participant_pubkeys,omitempty"`
	Proprietary        []proprietaryJSON       `json:"proprietary,omitempty"`
	Unknown            jsonObject              `json:"unknown,omitempty"`
}

// newDecodePSBT returns the decodepsbt method.
func newDecodePSBT(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "decodepsbt",
		Category:    "rawtransactions",
		Description: "Decodes a base64 PSBT into JSON: its transaction, global fields, and every input and output map.",
		Params: []rpc.Param{
			{Name: "psbt", Type: rpc.TypeString, Description: "The PSBT, base64."},
		},
		Result: "{                              (json object)\n" +
			"  \"tx\" : { ... },               (json object) The unsigned transaction, as decoderawtransaction shows it\n" +
			"  \"global_xpubs\" : [ ... ],     (json array) Extended public keys with their origins\n" +
			"  \"psbt_version\" : n,           (numeric) The PSBT version\n" +
			"  \"proprietary\" : [ ... ],      (json array) Global proprietary fields\n" +
			"  \"unknown\" : { ... },          (json object) Global unknown fields, key hex to value hex\n" +
			"  \"inputs\" : [ ... ],           (json array) The input maps\n" +
			"  \"outputs\" : [ ... ],          (json array) The output maps\n" +
			"  \"fee\" : n                     (numeric, optional) The fee in BTC, when every input's UTXO is known\n" +
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
			return decodePSBT(p, d.Net), nil
		},
	}
}

// decodePSBT renders a version 0 packet as Core's decodepsbt.
func decodePSBT(p *psbt.Packet, net *chaincfg.Params) *decodedPSBT {
	res := &decodedPSBT{
		Tx:          txToJSON(p.UnsignedTx, net, txOptions{}),
		GlobalXPubs: []globalXPubJSON{},
		PSBTVersion: p.GetVersion(),
		Proprietary: proprietaryList(p.Proprietary),
		Unknown:     rawObject(p.Unknown),
		Inputs:      make([]psbtInputJSON, len(p.Inputs)),
		Outputs:     make([]psbtOutputJSON, len(p.Outputs)),
	}
	xpubs := append([]psbt.XPub(nil), p.XPubs...)
	psbt.SortXPubs(xpubs)
	for _, x := range xpubs {
		res.GlobalXPubs = append(res.GlobalXPubs, globalXPubJSON{
			XPub:              base58.CheckEncode(x.Key[1:], x.Key[0]),
			MasterFingerprint: fingerprintHex(x.Origin.Fingerprint),
			Path:              hdPath(x.Origin.Path),
		})
	}
	var totalIn rpc.Amount
	haveAll := true
	for i := range p.Inputs {
		in := &p.Inputs[i]
		j := &res.Inputs[i]
		var utxoValue int64
		haveUTXO := false
		if in.WitnessUTXO != nil && in.WitnessUTXO.Value != -1 {
			utxoValue = in.WitnessUTXO.Value
			sj := scriptToJSON(in.WitnessUTXO.PkScript, true, true, nil, net)
			j.WitnessUTXO = &utxoJSON{Amount: rpc.Amount(in.WitnessUTXO.Value), ScriptPubKey: sj}
			haveUTXO = true
		}
		if in.NonWitnessUTXO != nil {
			utxoValue = in.NonWitnessUTXO.TxOut[p.UnsignedTx.TxIn[i].PreviousOutPoint.Index].Value
			j.NonWitnessUTXO = txToJSON(in.NonWitnessUTXO, net, txOptions{})
			haveUTXO = true
		}
		if haveUTXO {
			if v := rpc.Amount(utxoValue); v.MoneyRange() && (totalIn + v).MoneyRange() {
				totalIn += v
			} else {
				haveAll = false
			}
		} else {
			haveAll = false
		}
		fillInputJSON(j, in, net)
	}
	var totalOut rpc.Amount
	for i := range p.Outputs {
		fillOutputJSON(&res.Outputs[i], &p.Outputs[i], net)
		if v := rpc.Amount(p.UnsignedTx.TxOut[i].Value); v.MoneyRange() && (totalOut + v).MoneyRange() {
			totalOut += v
		} else {
			haveAll = false
		}
	}
	if haveAll {
		fee := totalIn - totalOut
		res.Fee = &fee
	}
	return res
}

func derivList(m map[string]psbt.KeyOrigin) []derivJSON {
	var out []derivJSON
	for _, k := range sortedBy(m, cmpStrings) {
		o := m[k]
		out = append(out, derivJSON{
			PubKey:            hex.EncodeToString([]byte(k)),
			MasterFingerprint: fingerprintHex(o.Fingerprint),
			Path:              hdPath(o.Path),
		})
	}
	return out
}

func tapDerivList(m map[[32]byte]psbt.TapKeyOrigin) []tapDerivJSON {
	var out []tapDerivJSON
	for _, x := range sortedBy(m, cmpBytes32) {
		o := m[x]
		hashes := []string{}
		for _, h := range o.LeafHashes {
			hashes = append(hashes, hex.EncodeToString(h[:]))
		}
		out = append(out, tapDerivJSON{
			PubKey:            hex.EncodeToString(x[:]),
			MasterFingerprint: fingerprintHex(o.Origin.Fingerprint),
			Path:              hdPath(o.Origin.Path),
			LeafHashes:        hashes,
		})
	}
	return out
}

func participantsList(m map[[33]byte][][33]byte) []musigParticipantsJSON {
	var out []musigParticipantsJSON
	for _, agg := range sortedBy(m, cmpBytes33) {
		parts := []string{}
		for _, pk := range m[agg] {
			parts = append(parts, hex.EncodeToString(pk[:]))
		}
		out = append(out, musigParticipantsJSON{AggregatePubKey: hex.EncodeToString(agg[:]), ParticipantPubKeys: parts})
	}
	return out
}

func cmpMuSig2(a, b psbt.MuSig2Key) int {
	if c := cmpBytes33(a.Aggregate, b.Aggregate); c != 0 {
		return c
	}
	return cmpBytes32(a.LeafHash, b.LeafHash)
}

func leafHashHex(h [32]byte) string {
	if h == ([32]byte{}) {
		return ""
	}
	return hex.EncodeToString(h[:])
}

func scriptPtr(s []byte, net *chaincfg.Params) *scriptJSON {
	if len(s) == 0 {
		return nil
	}
	sj := scriptToJSON(s, true, false, nil, net)
	return &sj
}

func fillInputJSON(j *psbtInputJSON, in *psbt.Input, net *chaincfg.Params) {
	if len(in.PartialSigs) > 0 {
		j.PartialSignatures = jsonObject{}
		for _, id := range sortedBy(in.PartialSigs, cmpBytes20) {
			ps := in.PartialSigs[id]
			j.PartialSignatures = append(j.PartialSignatures,
				objMember{hex.EncodeToString(ps.PubKey), hex.EncodeToString(ps.Signature)})
		}
	}
	if in.SighashType != nil {
		name := sighashNames[byte(*in.SighashType)]
		j.Sighash = &name
	}
	j.RedeemScript = scriptPtr(in.RedeemScript, net)
	j.WitnessScript = scriptPtr(in.WitnessScript, net)
	j.BIP32Derivs = derivList(in.BIP32Derivs)
	if len(in.FinalScriptSig) > 0 {
		j.FinalScriptSig = &scriptSigJSON{Asm: script.Asm(in.FinalScriptSig, true), Hex: hex.EncodeToString(in.FinalScriptSig)}
	}
	for _, item := range in.FinalScriptWitness {
		j.FinalScriptWitness = append(j.FinalScriptWitness, hex.EncodeToString(item))
	}
	if len(in.RIPEMD160Preimages) > 0 {
		j.RIPEMD160 = hexObject20(in.RIPEMD160Preimages)
	}
	if len(in.SHA256Preimages) > 0 {
		j.SHA256 = hexObject32(in.SHA256Preimages)
	}
	if len(in.HASH160Preimages) > 0 {
		j.HASH160 = hexObject20(in.HASH160Preimages)
	}
	if len(in.HASH256Preimages) > 0 {
		j.HASH256 = hexObject32(in.HASH256Preimages)
	}
	j.TapKeySig = hex.EncodeToString(in.TapKeySig)
	for _, k := range sortedBy(in.TapScriptSigs, func(a, b psbt.TapScriptSigKey) int {
		if c := cmpBytes32(a.XOnly, b.XOnly); c != 0 {
			return c
		}
		return cmpBytes32(a.LeafHash, b.LeafHash)
	}) {
		j.TapScriptSigs = append(j.TapScriptSigs, tapScriptSigJSON{
			PubKey: hex.EncodeToString(k.XOnly[:]), LeafHash: hex.EncodeToString(k.LeafHash[:]),
			Sig: hex.EncodeToString(in.TapScriptSigs[k]),
		})
	}
	for _, leaf := range sortedBy(in.TapLeafScripts, func(a, b psbt.TapLeaf) int {
		if c := cmpStrings(a.Script, b.Script); c != 0 {
			return c
		}
		return int(a.LeafVersion) - int(b.LeafVersion)
	}) {
		cbs := []string{}
		for _, cb := range sortedBy(in.TapLeafScripts[leaf], func(a, b string) int {
			if len(a) != len(b) {
				return len(a) - len(b)
			}
			return cmpStrings(a, b)
		}) {
			cbs = append(cbs, hex.EncodeToString([]byte(cb)))
		}
		j.TapScripts = append(j.TapScripts, tapScriptJSON{
			Script: hex.EncodeToString([]byte(leaf.Script)), LeafVer: int(leaf.LeafVersion), ControlBlocks: cbs,
		})
	}
	j.TapBIP32Derivs = tapDerivList(in.TapBIP32Derivs)
	if in.TapInternalKey != ([32]byte{}) {
		j.TapInternalKey = hex.EncodeToString(in.TapInternalKey[:])
	}
	if in.TapMerkleRoot != ([32]byte{}) {
		j.TapMerkleRoot = hex.EncodeToString(in.TapMerkleRoot[:])
	}
	j.MuSig2Participants = participantsList(in.MuSig2Participants)
	for _, id := range sortedBy(in.MuSig2PubNonces, cmpMuSig2) {
		m := in.MuSig2PubNonces[id]
		for _, part := range sortedBy(m, cmpBytes33) {
			j.MuSig2PubNonces = append(j.MuSig2PubNonces, musigNonceJSON{
				ParticipantPubKey: hex.EncodeToString(part[:]), AggregatePubKey: hex.EncodeToString(id.Aggregate[:]),
				LeafHash: leafHashHex(id.LeafHash), PubNonce: hex.EncodeToString(m[part]),
			})
		}
	}
	for _, id := range sortedBy(in.MuSig2PartialSigs, cmpMuSig2) {
		m := in.MuSig2PartialSigs[id]
		for _, part := range sortedBy(m, cmpBytes33) {
			sig := m[part]
			j.MuSig2PartialSigs = append(j.MuSig2PartialSigs, musigPartialSigJSON{
				ParticipantPubKey: hex.EncodeToString(part[:]), AggregatePubKey: hex.EncodeToString(id.Aggregate[:]),
				LeafHash: leafHashHex(id.LeafHash), PartialSig: hex.EncodeToString(sig[:]),
			})
		}
	}
	if len(in.Proprietary) > 0 {
		j.Proprietary = proprietaryList(in.Proprietary)
	}
	if len(in.Unknown) > 0 {
		j.Unknown = rawObject(in.Unknown)
	}
}

func fillOutputJSON(j *psbtOutputJSON, out *psbt.Output, net *chaincfg.Params) {
	j.RedeemScript = scriptPtr(out.RedeemScript, net)
	j.WitnessScript = scriptPtr(out.WitnessScript, net)
	j.BIP32Derivs = derivList(out.BIP32Derivs)
	if out.TapInternalKey != ([32]byte{}) {
		j.TapInternalKey = hex.EncodeToString(out.TapInternalKey[:])
	}
	for _, l := range out.TapTree {
		j.TapTree = append(j.TapTree, tapTreeLeafJSON{Depth: int(l.Depth), LeafVer: int(l.LeafVersion), Script: hex.EncodeToString(l.Script)})
	}
	j.TapBIP32Derivs = tapDerivList(out.TapBIP32Derivs)
	j.MuSig2Participants = participantsList(out.MuSig2Participants)
	if len(out.Proprietary) > 0 {
		j.Proprietary = proprietaryList(out.Proprietary)
	}
	if len(out.Unknown) > 0 {
		j.Unknown = rawObject(out.Unknown)
	}
}
