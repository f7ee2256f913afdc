package store

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestMasterKeyAndRewrite stores a master key and sealed secrets, reads
// them back inside a transaction and after a reopen, and checks that
// Rewrite leaves no overwritten secret in the file or the log.
func TestMasterKeyAndRewrite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "wallet.sqlite")
	s, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var id DescriptorID
	id[0] = 7
	plain := bytes.Repeat([]byte("PLAINSECRET-"), 4)
	err = s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.PutDescriptor(Descriptor{ID: id, Public: "pkh(02aa)#x"}); err != nil {
			return err
		}
		return tx.PutSecret(Secret{DescriptorID: id, KeyID: []byte("k"), Secret: plain})
	})
	if err != nil {
		t.Fatal(err)
	}
	mk := MasterKey{KDF: "argon2id", TimeCost: 3, MemoryKiB: 65536, Threads: 2,
		Salt: []byte("0123456789abcdef"), Wrapped: []byte("wrapped")}
	sealed := bytes.Repeat([]byte{0xEE}, 48)
	err = s.Update(ctx, func(tx *Tx) error {
		if got, err := tx.MasterKey(); err != nil || got != nil {
			t.Errorf("master key before any: %v %v", got, err)
		}
		secs, err := tx.Secrets()
		if err != nil || len(secs) != 1 || !bytes.Equal(secs[0].Secret, plain) {
			t.Errorf("secrets in transaction: %v %v", secs, err)
		}
		if err := tx.PutSecret(Secret{DescriptorID: id, KeyID: []byte("k"), Secret: sealed}); err != nil {
			return err
		}
		return tx.PutMasterKey(mk)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Rewrite(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal"} {
		data, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte("PLAINSECRET")) {
			t.Fatalf("%s still holds the overwritten secret", filepath.Base(f))
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := snap.MasterKey
	if got == nil || got.KDF != mk.KDF || got.TimeCost != 3 || got.MemoryKiB != 65536 || got.Threads != 2 ||
		!bytes.Equal(got.Salt, mk.Salt) || !bytes.Equal(got.Wrapped, mk.Wrapped) {
		t.Fatalf("master key after reopen: %+v", got)
	}
	if len(snap.Secrets) != 1 || !bytes.Equal(snap.Secrets[0].Secret, sealed) {
		t.Fatalf("secrets after reopen: %+v", snap.Secrets)
	}
}
