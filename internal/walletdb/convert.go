package walletdb

import (
	"github.com/descwallet/descwallet/internal/pgstore"
	"github.com/descwallet/descwallet/internal/store"
	"github.com/descwallet/descwallet/internal/wallet"
)

// Both stores declare their records with the wallet's layouts, field for
// field, so that each converts to the wallet's record and back as it is.
// The conversions below serve both stores: each type parameter stands for
// one record of either store.
type (
	descriptorRec interface {
		store.Descriptor | pgstore.Descriptor
	}
	secretRec interface {
		store.Secret | pgstore.Secret
	}
	chunkRec interface {
		store.Chunk | pgstore.Chunk
	}
	activeRec interface {
		store.Active | pgstore.Active
	}
	labelRec interface {
		store.Label | pgstore.Label
	}
	outpointRec interface {
		store.Outpoint | pgstore.Outpoint
	}
	masterKeyRec interface {
		store.MasterKey | pgstore.MasterKey
	}
	walletTxRec interface {
		store.WalletTx | pgstore.WalletTx
	}
	blockRefRec interface {
		store.BlockRef | pgstore.BlockRef
	}
	rescanRec interface {
		store.RescanState | pgstore.RescanState
	}
	txMarksRec interface {
		store.TxMarks | pgstore.TxMarks
	}
	eventRec interface {
		store.Event | pgstore.Event
	}
)

// walletSnapshot is a store's snapshot (its fields in order) as the
// wallet's.
func walletSnapshot[D descriptorRec, S secretRec, C chunkRec, A activeRec, L labelRec, O outpointRec, M masterKeyRec](
	meta map[string][]byte, descs []D, secrets []S, chunks []C, active []A, labels []L, locked []O,
	used [][]byte, mk *M) *wallet.Snapshot {
	out := &wallet.Snapshot{Meta: meta, UsedScripts: used}
	for _, r := range descs {
		out.Descriptors = append(out.Descriptors, wallet.DescriptorRecord(r))
	}
	if len(secrets) > 0 {
		out.Secrets = walletSecrets(secrets)
	}
	for _, r := range chunks {
		out.Chunks = append(out.Chunks, wallet.ChunkRecord(r))
	}
	for _, r := range active {
		out.Active = append(out.Active, wallet.ActiveRecord(r))
	}
	for _, r := range labels {
		out.Labels = append(out.Labels, wallet.LabelRecord(r))
	}
	for _, op := range locked {
		out.LockedCoins = append(out.LockedCoins, wallet.OutpointRecord(op))
	}
	out.MasterKey = walletMasterKey(mk)
	return out
}

// walletSecrets converts secret records.
func walletSecrets[S secretRec](recs []S) []wallet.SecretRecord {
	out := make([]wallet.SecretRecord, len(recs))
	for i, r := range recs {
		out[i] = wallet.SecretRecord(r)
	}
	return out
}

// walletMasterKey converts the wrapped master key; nil stays nil.
func walletMasterKey[M masterKeyRec](mk *M) *wallet.MasterKeyRecord {
	if mk == nil {
		return nil
	}
	r := wallet.MasterKeyRecord(*mk)
	return &r
}

// walletChain is a store's chain snapshot (its fields in order) as the
// wallet's.
func walletChain[T walletTxRec, B blockRefRec, R rescanRec, K txMarksRec](
	txs []T, recent []B, rescan *R, marks map[[32]byte]K) *wallet.ChainSnapshot {
	out := &wallet.ChainSnapshot{}
	for _, t := range txs {
		out.Txs = append(out.Txs, wallet.TxRecord(t))
	}
	for _, b := range recent {
		out.Recent = append(out.Recent, wallet.BlockRef(b))
	}
	if rescan != nil {
		r := store.RescanState(*rescan)
		out.Rescan = &wallet.RescanState{Next: r.Next, Stop: r.Stop}
	}
	if len(marks) > 0 {
		out.Marks = make(map[[32]byte]wallet.TxMarks, len(marks))
		for id, m := range marks {
			out.Marks[id] = wallet.TxMarks(m)
		}
	}
	return out
}

// storeBlocks converts the wallet's recent blocks to a store's.
func storeBlocks[B blockRefRec](blocks []wallet.BlockRef) []B {
	out := make([]B, len(blocks))
	for i, b := range blocks {
		out[i] = B(b)
	}
	return out
}

// walletEvents decodes stored events.
func walletEvents[E eventRec](evs []E) ([]wallet.EventRecord, error) {
	out := make([]wallet.EventRecord, len(evs))
	for i, se := range evs {
		e := store.Event(se)
		out[i] = wallet.EventRecord{Cursor: e.Cursor, Kind: e.Kind, TxID: e.TxID, Depth: e.Depth,
			Height: e.Height, BlockHash: e.BlockHash, Time: e.Time}
		if err := wallet.DecodeEventDetail(e.Detail, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// storeEvent is the stored form of an event, its content encoded.
func storeEvent[E eventRec](e wallet.EventRecord) E {
	return E(store.Event{Cursor: e.Cursor, Kind: e.Kind, TxID: e.TxID, Depth: e.Depth, Height: e.Height,
		BlockHash: e.BlockHash, Time: e.Time, Detail: wallet.EncodeEventDetail(e)})
}
