package methods

import (
	"bytes"
	"encoding/hex"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
)

// This file holds Core's JSON forms of transactions and scripts (TxToUniv
// and ScriptToUniv in core_write.cpp), shared by every method that shows
// one: decoderawtransaction, decodescript, decodepsbt, and the verbose
// forms of getrawtransaction and gettransaction.

// scriptJSON is Core's ScriptToUniv object. Desc and Hex are pointers
// because their presence depends on the caller, not on their value.
type scriptJSON struct {
	Asm     string  `json:"asm"`
	Desc    *string `json:"desc,omitempty"`
	Hex     *string `json:"hex,omitempty"`
	Address string  `json:"address,omitempty"`
	Type    string  `json:"type"`
}

// scriptToJSON is Core's ScriptToUniv: the asm, with includeAddress the
// inferred descriptor (with what provider knows; nil knows nothing) and the
// address when the script has one and is not a bare public key, with
// includeHex the hex, and the output type.
func scriptToJSON(spk []byte, includeHex, includeAddress bool, provider descriptor.Provider, net *chaincfg.Params) scriptJSON {
	out := scriptJSON{Asm: script.Asm(spk, false)}
	if includeAddress {
		if provider == nil {
			provider = descriptor.NewFlatProvider()
		}
		d := descriptor.Infer(spk, provider, net).String()
		out.Desc = &d
	}
	if includeHex {
		h := hex.EncodeToString(spk)
		out.Hex = &h
	}
	class, _ := script.Solve(spk)
	if includeAddress && class != script.PubKey {
		if addr, ok := address.Encode(spk, net); ok {
			out.Address = addr
		}
	}
	out.Type = class.String()
	return out
}

// scriptSigJSON is the scriptSig object of a transaction input.
type scriptSigJSON struct {
	Asm string `json:"asm"`
	Hex string `json:"hex"`
}

// decodedTxIn is one element of TxToUniv's vin. A coinbase input has only
// Coinbase (and maybe the witness) besides the sequence.
type decodedTxIn struct {
	Coinbase    *string        `json:"coinbase,omitempty"`
	Txid        string         `json:"txid,omitempty"`
	Vout        *uint32        `json:"vout,omitempty"`
	ScriptSig   *scriptSigJSON `json:"scriptSig,omitempty"`
	TxInWitness []string       `json:"txinwitness,omitempty"`
	// Prevout is the spent output, shown only with undo data at the
	// highest verbosity (getrawtransaction 2, getblock 3).
	Prevout  *prevoutJSON `json:"prevout,omitempty"`
	Sequence uint32       `json:"sequence"`
}

// decodedTxOut is one element of TxToUniv's vout.
type decodedTxOut struct {
	Value        rpc.Amount `json:"value"`
	N            int        `json:"n"`
	ScriptPubKey scriptJSON `json:"scriptPubKey"`
	// IsChange is set by gettransaction's decoded form on the wallet's
	// change outputs.
	IsChange bool `json:"ischange,omitempty"`
}

// decodedTx is Core's TxToUniv object (without undo data or change flags).
type decodedTx struct {
	Txid      string         `json:"txid"`
	Hash      string         `json:"hash"`
	Version   uint32         `json:"version"`
	Size      int            `json:"size"`
	VSize     int            `json:"vsize"`
	Weight    int            `json:"weight"`
	LockTime  uint32         `json:"locktime"`
	Vin       []decodedTxIn  `json:"vin"`
	Vout      []decodedTxOut `json:"vout"`
	BlockHash string         `json:"blockhash,omitempty"`
	Hex       string         `json:"hex,omitempty"`
}

// txOptions are TxToUniv's optional parts.
type txOptions struct {
	// BlockHash, when not nil, is written as blockhash.
	BlockHash *chainhash.Hash
	// IncludeHex adds the serialized transaction as hex.
	IncludeHex bool
}

// isCoinbase is Core's IsCoinBase: one input spending the null outpoint.
func isCoinbase(tx *wire.MsgTx) bool {
	return len(tx.TxIn) == 1 && tx.TxIn[0].PreviousOutPoint.Index == wire.MaxPrevOutIndex &&
		tx.TxIn[0].PreviousOutPoint.Hash == (chainhash.Hash{})
}

// txWeight is Core's GetTransactionWeight: the size without witness times
// three plus the full size.
func txWeight(tx *wire.MsgTx) int {
	return tx.SerializeSizeStripped()*(4-1) + tx.SerializeSize()
}

// txToJSON is Core's TxToUniv for a transaction with no undo data.
func txToJSON(tx *wire.MsgTx, net *chaincfg.Params, opt txOptions) *decodedTx {
	weight := txWeight(tx)
	out := &decodedTx{
		Txid:     tx.TxHash().String(),
		Hash:     tx.WitnessHash().String(),
		Version:  uint32(tx.Version),
		Size:     tx.SerializeSize(),
		VSize:    (weight + 3) / 4,
		Weight:   weight,
		LockTime: tx.LockTime,
		Vin:      make([]decodedTxIn, len(tx.TxIn)),
		Vout:     make([]decodedTxOut, len(tx.TxOut)),
	}
	coinbase := isCoinbase(tx)
	for i, in := range tx.TxIn {
		j := decodedTxIn{Sequence: in.Sequence}
		if coinbase {
			h := hex.EncodeToString(in.SignatureScript)
			j.Coinbase = &h
		} else {
			vout := in.PreviousOutPoint.Index
			j.Txid = in.PreviousOutPoint.Hash.String()
			j.Vout = &vout
			j.ScriptSig = &scriptSigJSON{
				Asm: script.Asm(in.SignatureScript, true),
				Hex: hex.EncodeToString(in.SignatureScript),
			}
		}
		if len(in.Witness) > 0 {
			j.TxInWitness = make([]string, len(in.Witness))
			for k, item := range in.Witness {
				j.TxInWitness[k] = hex.EncodeToString(item)
			}
		}
		out.Vin[i] = j
	}
	for i, o := range tx.TxOut {
		out.Vout[i] = decodedTxOut{
			Value:        rpc.Amount(o.Value),
			N:            i,
			ScriptPubKey: scriptToJSON(o.PkScript, true, true, nil, net),
		}
	}
	if opt.BlockHash != nil {
		out.BlockHash = opt.BlockHash.String()
	}
	if opt.IncludeHex {
		out.Hex = encodeTxHex(tx)
	}
	return out
}

// encodeTxHex is Core's EncodeHexTx: the witness serialization when any
// input has a witness, the legacy one otherwise.
func encodeTxHex(tx *wire.MsgTx) string {
	var buf bytes.Buffer
	buf.Grow(tx.SerializeSize())
	_ = tx.Serialize(&buf)
	return hex.EncodeToString(buf.Bytes())
}
