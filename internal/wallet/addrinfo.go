package wallet

import (
	"bytes"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/script"
)

// AddressInfo is getaddressinfo's reply. Field order and omissions are
// Core's (spec c.3): the JSON encoding of this struct is the reply.
type AddressInfo struct {
	Address        string `json:"address"`
	ScriptPubKey   string `json:"scriptPubKey"`
	IsMine         bool   `json:"ismine"`
	Solvable       bool   `json:"solvable"`
	Desc           string `json:"desc,omitempty"`
	ParentDesc     string `json:"parent_desc,omitempty"`
	IsWatchOnly    bool   `json:"iswatchonly"`
	IsScript       *bool  `json:"isscript,omitempty"`
	IsWitness      bool   `json:"iswitness"`
	WitnessVersion *int   `json:"witness_version,omitempty"`
	WitnessProgram string `json:"witness_program,omitempty"`
	scriptDetails
	IsChange            bool     `json:"ischange"`
	Timestamp           *int64   `json:"timestamp,omitempty"`
	HDKeyPath           string   `json:"hdkeypath,omitempty"`
	HDSeedID            string   `json:"hdseedid,omitempty"`
	HDMasterFingerprint string   `json:"hdmasterfingerprint,omitempty"`
	Labels              []string `json:"labels"`
}

// scriptDetails are the fields Core's wallet address visitor adds.
type scriptDetails struct {
	Script       string    `json:"script,omitempty"`
	Hex          string    `json:"hex,omitempty"`
	PubKey       string    `json:"pubkey,omitempty"`
	Embedded     *Embedded `json:"embedded,omitempty"`
	SigsRequired *int      `json:"sigsrequired,omitempty"`
	PubKeys      []string  `json:"pubkeys,omitempty"`
	IsCompressed *bool     `json:"iscompressed,omitempty"`
}

// Embedded describes the inner script of a P2SH or P2WSH address (c.5).
type Embedded struct {
	IsScript       *bool  `json:"isscript,omitempty"`
	IsWitness      bool   `json:"iswitness"`
	WitnessVersion *int   `json:"witness_version,omitempty"`
	WitnessProgram string `json:"witness_program,omitempty"`
	scriptDetails
	Address      string `json:"address"`
	ScriptPubKey string `json:"scriptPubKey"`
}

// provider is the solving data of one expansion (Core's signing provider
// of one descriptor at one index). It implements descriptor.Provider over
// the expansion without copying it.
type provider struct{ out *descriptor.Output }

var _ descriptor.Provider = provider{}

// key returns the expansion's key whose HASH160 is id.
func (p provider) key(id descriptor.KeyID) *descriptor.Key {
	for i := range p.out.Keys {
		if descriptor.KeyID(script.Hash160(p.out.Keys[i].PubKey)) == id {
			return &p.out.Keys[i]
		}
	}
	return nil
}

// PubKey implements descriptor.Provider.
func (p provider) PubKey(id descriptor.KeyID) ([]byte, bool) {
	if k := p.key(id); k != nil {
		return k.PubKey, true
	}
	return nil, false
}

// Origin implements descriptor.Provider.
func (p provider) Origin(id descriptor.KeyID) (descriptor.KeyOrigin, bool) {
	if k := p.key(id); k != nil {
		return k.Origin, true
	}
	return descriptor.KeyOrigin{}, false
}

// Script implements descriptor.Provider.
func (p provider) Script(id [20]byte) ([]byte, bool) {
	s, ok := p.out.Scripts[id]
	return s, ok
}

// TaprootSpendData implements descriptor.Provider. Only tr() outputs have
// spend data; a rawtr() output has none.
func (p provider) TaprootSpendData(outputKey [32]byte) (*descriptor.Taproot, bool) {
	t, ok := p.out.Trees[outputKey]
	return t, ok
}

func (p provider) pubkeyByHash(h []byte) *descriptor.Key {
	var id descriptor.KeyID
	copy(id[:], h)
	return p.key(id)
}

func (p provider) scriptByHash160(h []byte) []byte {
	var id [20]byte
	copy(id[:], h)
	s, _ := p.Script(id)
	return s
}

// scriptBySHA256 finds a witness script by its P2WSH program: scripts are
// kept by HASH160, which is RIPEMD160 of that program.
func (p provider) scriptBySHA256(h []byte) []byte {
	s, _ := p.Script(script.RIPEMD160(h))
	return s
}

func (p provider) keyOfXOnly(x []byte) *descriptor.Key {
	for i := range p.out.Keys {
		k := p.out.Keys[i].PubKey
		if len(k) == 33 && bytes.Equal(k[1:], x) {
			return &p.out.Keys[i]
		}
	}
	return nil
}

// inferDescriptor is the desc field: Core's InferDescriptor of spk from
// the solving data of one expansion, with checksum, when the inferred
// descriptor is solvable.
func inferDescriptor(spk []byte, p provider, net *chaincfg.Params) (string, bool) {
	d := descriptor.Infer(spk, p, net)
	if d == nil || !d.IsSolvable() {
		return "", false
	}
	return d.String(), true
}

// AddressInfo answers getaddressinfo for a scriptPubKey. It reads memory
// only.
func (w *Wallet) AddressInfo(spk []byte) AddressInfo {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.addressInfoLocked(spk)
}

// addressInfoLocked is AddressInfo; the caller holds w.mu.
func (w *Wallet) addressInfoLocked(spk []byte) AddressInfo {
	addr, _ := address.Encode(spk, w.cfg.Net)
	info := AddressInfo{Address: addr, ScriptPubKey: hex.EncodeToString(spk), Labels: []string{}}
	if d, ok := address.Describe(spk); ok {
		info.IsScript, info.IsWitness = d.IsScript, d.IsWitness
		info.WitnessVersion, info.WitnessProgram = d.WitnessVersion, d.WitnessProgram
	}
	entry := w.book[string(spk)]
	if entry != nil && entry.label != nil {
		info.Labels = []string{*entry.label}
	}
	matches := w.findScript(spk)
	if len(matches) == 0 {
		return info
	}
	info.IsMine = true
	info.IsChange = addr == "" || entry == nil || entry.label == nil

	// Solving data comes from the descriptor imported first, the parent
	// and the key metadata from the last one (Core takes the first of a
	// list for the one and the first of a set for the other).
	solver := matches[0]
	meta := matches[len(matches)-1]
	info.ParentDesc = meta.wd.normalized

	p := provider{out: &solver.out}
	if desc, ok := inferDescriptor(spk, p, w.cfg.Net); ok {
		info.Solvable = true
		info.Desc = desc
	}
	if solver.wd.d.IsSolvable() {
		info.scriptDetails = describeScript(spk, p, w)
	}

	if k := metadataKey(spk, provider{out: &meta.out}, meta.wd); k != nil {
		ts := meta.wd.rec.Timestamp
		info.Timestamp = &ts
		info.HDKeyPath = formatHDPath(k.Origin.Path)
		info.HDSeedID = hdSeedIDZero
		info.HDMasterFingerprint = hex.EncodeToString(k.Origin.Fingerprint[:])
	}
	return info
}

// describeScript is Core's wallet address visitor: details of P2PKH,
// P2WPKH (the key), and P2SH/P2WSH (the inner script) destinations.
func describeScript(spk []byte, p provider, w *Wallet) scriptDetails {
	var det scriptDetails
	class, sol := script.Solve(spk)
	switch class {
	case script.PubKeyHash:
		if k := p.pubkeyByHash(sol[0]); k != nil {
			det.PubKey = hex.EncodeToString(k.PubKey)
			c := len(k.PubKey) == 33
			det.IsCompressed = &c
		}
	case script.WitnessV0KeyHash:
		if k := p.pubkeyByHash(sol[0]); k != nil && len(k.PubKey) == 33 {
			det.PubKey = hex.EncodeToString(k.PubKey)
		}
	case script.ScriptHash:
		if sub := p.scriptByHash160(sol[0]); sub != nil {
			det = describeSubScript(sub, p, w)
		}
	case script.WitnessV0ScriptHash:
		if sub := p.scriptBySHA256(sol[0]); sub != nil {
			det = describeSubScript(sub, p, w)
		}
	}
	return det
}

func describeSubScript(sub []byte, p provider, w *Wallet) scriptDetails {
	class, sol := script.Solve(sub)
	det := scriptDetails{Script: string(class), Hex: hex.EncodeToString(sub)}
	if addr, ok := address.Encode(sub, w.cfg.Net); ok {
		emb := &Embedded{Address: addr, ScriptPubKey: hex.EncodeToString(sub)}
		if d, ok := address.Describe(sub); ok {
			emb.IsScript, emb.IsWitness = d.IsScript, d.IsWitness
			emb.WitnessVersion, emb.WitnessProgram = d.WitnessVersion, d.WitnessProgram
		}
		emb.scriptDetails = describeScript(sub, p, w)
		if emb.PubKey != "" {
			det.PubKey = emb.PubKey
		}
		det.Embedded = emb
		return det
	}
	if class == script.Multisig {
		n := int(sol[0][0])
		det.SigsRequired = &n
		det.PubKeys = []string{}
		for _, k := range sol[1 : len(sol)-1] {
			det.PubKeys = append(det.PubKeys, hex.EncodeToString(k))
		}
	}
	return det
}

// metadataKey returns the single key behind a P2PKH, P2WPKH, P2SH-P2WPKH or
// key-path-only P2TR output, with its origin, or nil.
func metadataKey(spk []byte, p provider, wd *walletDesc) *descriptor.Key {
	class, sol := script.Solve(spk)
	switch class {
	case script.PubKeyHash, script.WitnessV0KeyHash:
		return p.pubkeyByHash(sol[0])
	case script.ScriptHash:
		sub := p.scriptByHash160(sol[0])
		if sub == nil {
			return nil
		}
		if c, s := script.Solve(sub); c == script.WitnessV0KeyHash {
			return p.pubkeyByHash(s[0])
		}
	case script.WitnessV1Taproot:
		if wd.d.Kind() != descriptor.KindTR {
			return nil
		}
		tr := p.out.Taproot
		if tr == nil || len(tr.Leaves) > 0 {
			return nil
		}
		return p.keyOfXOnly(tr.InternalKey[:])
	}
	return nil
}

// formatHDPath prints a derivation path as Core's hdkeypath: "m" then
// "/n" steps, hardened marked with h.
func formatHDPath(path []uint32) string {
	var b strings.Builder
	b.WriteByte('m')
	for _, s := range path {
		b.WriteByte('/')
		b.WriteString(strconv.FormatUint(uint64(s&0x7fffffff), 10))
		if s&0x80000000 != 0 {
			b.WriteByte('h')
		}
	}
	return b.String()
}
