package wallet

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/script"

	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // HASH160 is Bitcoin's
)

func hash160(b []byte) []byte {
	s := sha256.Sum256(b)
	r := ripemd160.New()
	r.Write(s[:])
	return r.Sum(nil)
}

type inferCtx int

const (
	inferTop inferCtx = iota
	inferSH
	inferWSH
)

// inferDescriptor rebuilds the descriptor of spk from the solving data of
// one expansion, as Core's InferDescriptor, and reports whether it is
// solvable. parentSolvable is false for addr() and raw() descriptors,
// whose scripts are only solvable when they are taproot outputs (rawtr).
func inferDescriptor(spk []byte, p provider, parentSolvable bool) (string, bool) {
	if !parentSolvable {
		if c, sol := script.Solve(spk); c == script.WitnessV1Taproot {
			return descriptor.AddChecksum("rawtr(" + hex.EncodeToString(sol[0]) + ")"), true
		}
		return "", false
	}
	s, ok := inferScript(spk, p, inferTop)
	if !ok {
		return "", false
	}
	return descriptor.AddChecksum(s), true
}

func keyString(k *descriptor.Key, xonly bool) string {
	var b strings.Builder
	b.WriteByte('[')
	b.WriteString(hex.EncodeToString(k.Origin.Fingerprint[:]))
	for _, s := range k.Origin.Path {
		b.WriteByte('/')
		b.WriteString(strconv.FormatUint(uint64(s&0x7fffffff), 10))
		if s&0x80000000 != 0 {
			b.WriteByte('h')
		}
	}
	b.WriteByte(']')
	if xonly && len(k.PubKey) == 33 {
		b.WriteString(hex.EncodeToString(k.PubKey[1:]))
	} else {
		b.WriteString(hex.EncodeToString(k.PubKey))
	}
	return b.String()
}

func inferScript(s []byte, p provider, ctx inferCtx) (string, bool) {
	class, sol := script.Solve(s)
	switch class {
	case script.PubKey:
		if k := p.keyOf(sol[0]); k != nil {
			return "pk(" + keyString(k, false) + ")", true
		}
	case script.PubKeyHash:
		if k := p.pubkeyByHash(sol[0]); k != nil {
			return "pkh(" + keyString(k, false) + ")", true
		}
	case script.WitnessV0KeyHash:
		if ctx == inferWSH {
			return "", false
		}
		if k := p.pubkeyByHash(sol[0]); k != nil && len(k.PubKey) == 33 {
			return "wpkh(" + keyString(k, false) + ")", true
		}
	case script.Multisig:
		var keys []string
		for _, pk := range sol[1 : len(sol)-1] {
			k := p.keyOf(pk)
			if k == nil {
				return "", false
			}
			keys = append(keys, keyString(k, false))
		}
		return "multi(" + strconv.Itoa(int(sol[0][0])) + "," + strings.Join(keys, ",") + ")", true
	case script.ScriptHash:
		if ctx != inferTop {
			return "", false
		}
		if sub := p.scriptByHash160(sol[0]); sub != nil {
			if in, ok := inferScript(sub, p, inferSH); ok {
				return "sh(" + in + ")", true
			}
		}
	case script.WitnessV0ScriptHash:
		if ctx == inferWSH {
			return "", false
		}
		if sub := p.scriptBySHA256(sol[0]); sub != nil {
			if in, ok := inferScript(sub, p, inferWSH); ok {
				return "wsh(" + in + ")", true
			}
		}
	case script.WitnessV1Taproot:
		if ctx != inferTop {
			return "", false
		}
		tr := p.out.Taproot
		if tr != nil && string(tr.OutputKey[:]) == string(sol[0]) && len(tr.Leaves) == 0 {
			if k := p.keyOfXOnly(tr.InternalKey[:]); k != nil && tr.MerkleRoot == nil && tr.InternalKey != tr.OutputKey {
				return "tr(" + keyString(k, true) + ")", true
			}
		}
		if k := p.keyOfXOnly(sol[0]); k != nil {
			return "rawtr(" + keyString(k, true) + ")", true
		}
		return "rawtr(" + hex.EncodeToString(sol[0]) + ")", true
	}
	return "", false
}
