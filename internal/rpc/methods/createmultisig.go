package methods

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
)

// createMultisigResult is createmultisig's reply in Core's field order.
type createMultisigResult struct {
	Address      string   `json:"address"`
	RedeemScript string   `json:"redeemScript"`
	Descriptor   string   `json:"descriptor"`
	Warnings     []string `json:"warnings,omitempty"`
}

// newCreateMultisig returns the createmultisig method.
func newCreateMultisig(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "createmultisig",
		Category: "util",
		Description: "Builds an m-of-n multisig script from public keys and returns its address, the script and\n" +
			"its descriptor. Nothing is stored.",
		Params: []rpc.Param{
			{Name: "nrequired", Type: rpc.TypeNumber, Description: "How many signatures the script requires."},
			{Name: "keys", Type: rpc.TypeArray, Description: "The public keys, hex-encoded, in script order."},
			{Name: "address_type", Type: rpc.TypeString, Optional: true, Default: `"legacy"`,
				Description: "\"legacy\", \"p2sh-segwit\" or \"bech32\". Uncompressed keys always give a legacy address."},
		},
		Result: "{                            (json object)\n" +
			"  \"address\" : \"str\",          (string) The multisig address\n" +
			"  \"redeemScript\" : \"hex\",     (string) The multisig script\n" +
			"  \"descriptor\" : \"str\",       (string) The descriptor of the address\n" +
			"  \"warnings\" : [ \"str\" ]      (json array, optional) Why the address type differs from the one asked for\n" +
			"}",
		Examples: []string{`2 "[\"03789ed0bb717d88f7d321a368d905e7430207ebbd82bd342cf11ae157a7ace5fd\",\"03dbc6764b8884a92e871274b87583e6d5c2a58819473e17e107ef3f6aa5a61626\"]"`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			required, err := req.Int(0)
			if err != nil {
				return nil, err
			}
			var rawKeys []json.RawMessage
			if err := req.Decode(1, &rawKeys); err != nil {
				return nil, err
			}
			keys := make([][]byte, 0, len(rawKeys))
			for _, raw := range rawKeys {
				s, err := rpc.AsString(raw)
				if err != nil {
					return nil, err
				}
				k, err := hexToPubKey(s)
				if err != nil {
					return nil, err
				}
				keys = append(keys, k)
			}
			outType := "legacy"
			if req.Has(2) {
				if outType, err = req.String(2); err != nil {
					return nil, err
				}
			}
			switch outType {
			case "legacy", "p2sh-segwit", "bech32":
			case "bech32m":
				return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "createmultisig cannot create bech32m multisig addresses")
			default:
				return nil, rpc.Errorf(rpc.CodeInvalidAddressOrKey, "Unknown address type '%s'", outType)
			}
			return createMultisig(required, keys, outType, d)
		},
	}
}

// createMultisig is Core's AddAndGetMultisigDestination followed by the
// descriptor inference of createmultisig.
func createMultisig(required int, keys [][]byte, outType string, d *Deps) (*createMultisigResult, error) {
	if required < 1 {
		return nil, rpc.NewError(rpc.CodeInvalidParameter, "a multisignature address must require at least one key to redeem")
	}
	if len(keys) < required {
		return nil, rpc.Errorf(rpc.CodeInvalidParameter,
			"not enough keys supplied (got %d keys, but need at least %d to redeem)", len(keys), required)
	}
	if len(keys) > script.MaxPubKeysPerMultisig {
		return nil, rpc.Errorf(rpc.CodeInvalidParameter,
			"Number of keys involved in the multisignature address creation > %d\nReduce the number", script.MaxPubKeysPerMultisig)
	}
	redeem, err := script.PayToMultisig(required, keys)
	if err != nil {
		return nil, err
	}
	addrType := outType
	for _, k := range keys {
		if len(k) != 33 {
			addrType = "legacy"
			break
		}
	}
	if addrType == "legacy" && len(redeem) > script.MaxElementSize {
		return nil, rpc.Errorf(rpc.CodeInvalidParameter,
			"redeemScript exceeds size limit: %d > %d", len(redeem), script.MaxElementSize)
	}
	provider := descriptor.NewFlatProvider()
	provider.AddScript(redeem)
	var spk []byte
	if addrType == "legacy" {
		spk = p2sh(redeem)
	} else {
		h := sha256.Sum256(redeem)
		wsh := script.PayToWitnessScriptHash(h[:])
		provider.AddScript(wsh)
		spk = wsh
		if addrType == "p2sh-segwit" {
			spk = p2sh(wsh)
		}
	}
	desc := descriptor.Infer(spk, provider, d.Net)
	res := &createMultisigResult{RedeemScript: hex.EncodeToString(redeem), Descriptor: desc.String()}
	res.Address, _ = address.Encode(spk, d.Net)
	if desc.OutputType() != outType {
		res.Warnings = []string{"Unable to make chosen address type, please ensure no uncompressed public keys are present."}
	}
	return res, nil
}

// hexToPubKey is Core's HexToPubKey: hex of 33 or 65 bytes that is a valid
// point in compressed, uncompressed or hybrid form.
func hexToPubKey(s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(s) == 0 {
		return nil, rpc.Errorf(rpc.CodeInvalidAddressOrKey, "Pubkey \"%s\" must be a hex string", s)
	}
	if len(b) != 33 && len(b) != 65 {
		return nil, rpc.Errorf(rpc.CodeInvalidAddressOrKey, "Pubkey \"%s\" must have a length of either 33 or 65 bytes", s)
	}
	if !fullyValidPubKey(b) {
		return nil, rpc.Errorf(rpc.CodeInvalidAddressOrKey, "Pubkey \"%s\" must be cryptographically valid.", s)
	}
	return b, nil
}

// fullyValidPubKey is Core's CPubKey::IsFullyValid: the length matches the
// header byte (33 for 0x02/0x03, 65 for 0x04/0x06/0x07) and the point
// parses; a hybrid key's header must match the parity of its y.
func fullyValidPubKey(b []byte) bool {
	switch {
	case len(b) == 33 && (b[0] == 0x02 || b[0] == 0x03):
	case len(b) == 65 && b[0] == 0x04:
	case len(b) == 65 && (b[0] == 0x06 || b[0] == 0x07):
		if b[64]&1 != b[0]&1 {
			return false
		}
		u := append([]byte{0x04}, b[1:]...)
		_, err := btcec.ParsePubKey(u)
		return err == nil
	default:
		return false
	}
	_, err := btcec.ParsePubKey(b)
	return err == nil
}
