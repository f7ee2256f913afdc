package walletdb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/descwallet/descwallet/internal/pgstore"
	"github.com/descwallet/descwallet/internal/pgtest"
	"github.com/descwallet/descwallet/internal/wallet"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// content is everything a wallet database holds, read through the
// adapters.
type content struct {
	Snap   *wallet.Snapshot
	Chain  *wallet.ChainSnapshot
	Events []wallet.EventRecord
	Pruned int64
	Hook   int64
}

func read(t *testing.T, s wallet.Store) content {
	t.Helper()
	ctx := context.Background()
	load := s.Load
	if f, ok := s.(interface {
		loadFull(ctx context.Context) (*wallet.Snapshot, error)
	}); ok {
		// The script chunks too (the wallet's Load leaves them out).
		load = f.loadFull
	}
	snap, err := load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	chain, err := s.(wallet.ChainStore).LoadChain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evs, pruned, err := s.(wallet.EventStore).Events(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	hook, err := s.(wallet.DeliveryStore).DeliveryCursor(ctx, "http://127.0.0.1:9/hook")
	if err != nil {
		t.Fatal(err)
	}
	return content{snap, chain, evs, pruned, hook}
}

// TestPortableBackup fills a SQLite wallet with every kind of record,
// backs it up, restores the file into PostgreSQL, backs that up as a
// SQLite file again, and finds the same content at each step.
func TestPortableBackup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src, err := Opener{}.Create(ctx, filepath.Join(dir, "src.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	label := "shop"
	d1 := wallet.DescriptorRecord{ID: [32]byte{1}, Public: "wpkh(tpub/0/*)#a", Ranged: true, RangeEnd: 5, NextIndex: 2, Timestamp: 7, Cache: []byte{1, 2}}
	d2 := wallet.DescriptorRecord{ID: [32]byte{2}, Public: "pkh(02aa)#b", Timestamp: 8}
	err = src.(wallet.ChainStore).UpdateChain(ctx, func(tx wallet.ChainStoreTx) error {
		for _, f := range []func() error{
			func() error { return tx.PutMeta("flags", []byte{0, 1}) },
			func() error { _, err := tx.PutDescriptor(d1); return err },
			func() error { _, err := tx.PutDescriptor(d2); return err },
			func() error {
				return tx.PutSecret(wallet.SecretRecord{DescriptorID: d2.ID, KeyID: []byte("k"), Secret: []byte("sealed")})
			},
			func() error {
				return tx.PutChunk(wallet.ChunkRecord{DescriptorID: d1.ID, Chunk: 0, Data: []byte("digests")})
			},
			func() error {
				return tx.SetActive(wallet.ActiveRecord{OutputType: "bech32", DescriptorID: d1.ID})
			},
			func() error {
				return tx.PutLabel(wallet.LabelRecord{Script: []byte{0x51}, Label: &label, Purpose: "receive"})
			},
			func() error { return tx.PutLabel(wallet.LabelRecord{Script: []byte{0x52}, Purpose: "receive"}) },
			func() error { return tx.PutLockedCoin(wallet.OutpointRecord{TxID: [32]byte{9}, Vout: 3}) },
			func() error { return tx.PutUsedScript([]byte{0x53}) },
			func() error {
				return tx.PutMasterKey(wallet.MasterKeyRecord{KDF: "argon2id", TimeCost: 1, MemoryKiB: 8, Threads: 1, Salt: []byte("s"), Wrapped: []byte("w")})
			},
			func() error {
				_, err := tx.PutTx(wallet.TxRecord{TxID: [32]byte{3}, Raw: []byte{1}, TimeReceived: 5, TimeSmart: 4, Height: 2, BlockHash: [32]byte{2}, BlockTime: 6, BlockIndex: 1, EventDepth: 1})
				return err
			},
			func() error {
				_, err := tx.PutTx(wallet.TxRecord{TxID: [32]byte{4}, Raw: []byte{2}, TimeReceived: 9, Height: -1})
				return err
			},
			func() error {
				return tx.PutTxMarks([32]byte{4}, wallet.TxMarks{Abandoned: true, Replaces: [32]byte{3}, ConflictHash: [32]byte{8}, ConflictHeight: 2, MempoolReplaced: [32]byte{6}})
			},
			func() error {
				return tx.SetRecentBlocks([]wallet.BlockRef{{Height: 1, Hash: [32]byte{1}}, {Height: 2, Hash: [32]byte{2}}})
			},
			func() error { return tx.SetRescan(&wallet.RescanState{Next: 1, Stop: 2}) },
			func() error {
				_, err := tx.AppendEvent(wallet.EventRecord{Kind: "received", TxID: [32]byte{3}, Height: -1, Time: 1})
				return err
			},
			func() error {
				_, err := tx.AppendEvent(wallet.EventRecord{Kind: "confirmed", TxID: [32]byte{3}, Depth: 1, Height: 2, BlockHash: [32]byte{2}, Time: 2,
					Amount: 5000, Outputs: []wallet.EventOutput{{Vout: 1, Address: "bcrt1q", Amount: 5000, Label: &label, ParentDescs: []string{d1.Public}}}})
				return err
			},
			func() error {
				_, err := tx.AppendEvent(wallet.EventRecord{Kind: "sent", TxID: [32]byte{4}, Height: -1, Time: 3, Amount: -700, Fee: new(int64)})
				return err
			},
			func() error { _, _, err := tx.PruneEvents(2, 0, nil); return err },
		} {
			if err := f(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.(wallet.DeliveryStore).SetDeliveryCursor(ctx, "http://127.0.0.1:9/hook", 2); err != nil {
		t.Fatal(err)
	}
	want := read(t, src)
	if len(want.Events) != 2 || want.Pruned != 1 || want.Events[0].Outputs[0].Label == nil || want.Hook != 2 ||
		len(want.Chain.Txs) != 2 || len(want.Chain.Marks) != 1 || want.Snap.MasterKey == nil {
		t.Fatalf("source content incomplete: %+v", want)
	}

	file1 := filepath.Join(dir, "one.bak")
	if err := src.Backup(ctx, file1); err != nil {
		t.Fatal(err)
	}
	pdb, err := pgstore.Connect(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pdb.Close()
	root := filepath.Join(dir, "wallets")
	po := PGOpener{DB: pdb, Root: root, Namespace: "regtest"}
	path := filepath.Join(root, "restored", wallet.DatabaseFile)
	if err := po.Restore(ctx, path, file1); err != nil {
		t.Fatal(err)
	}
	if err := po.Restore(ctx, path, file1); err == nil {
		t.Fatal("restore over an existing wallet succeeded")
	}
	if ok, err := po.Exists(ctx, path); err != nil || !ok {
		t.Fatalf("Exists: %v %v", ok, err)
	}
	pg, err := po.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, pg); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored into PostgreSQL:\n got %+v\nwant %+v", got, want)
	}
	file2 := filepath.Join(dir, "two.bak")
	if err := pg.Backup(ctx, file2); err != nil {
		t.Fatal(err)
	}
	if err := pg.Backup(ctx, file2); err == nil {
		t.Fatal("backup over an existing file succeeded")
	}
	pg.Close()
	if left, _ := filepath.Glob(filepath.Join(dir, ".two.bak*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	back, err := Opener{}.Open(ctx, file2)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if got := read(t, back); !reflect.DeepEqual(got, want) {
		t.Fatalf("backed up from PostgreSQL:\n got %+v\nwant %+v", got, want)
	}

	// A file that is not a wallet is refused as such, and leaves nothing.
	junk := filepath.Join(dir, "junk")
	os.WriteFile(junk, []byte("junk"), 0o600)
	jpath := filepath.Join(root, "junk", wallet.DatabaseFile)
	if err := po.Restore(ctx, jpath, junk); err == nil || !errors.Is(err, wallet.ErrBackupFormat) {
		t.Fatalf("junk restore: %v", err)
	}
	if ok, _ := po.Exists(ctx, jpath); ok {
		t.Fatal("junk restore left a wallet")
	}
	if paths, err := po.List(ctx); err != nil || !reflect.DeepEqual(paths, []string{path}) {
		t.Fatalf("List: %v %v", paths, err)
	}
}
