package store

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func strp(s string) *string { return &s }

func TestCreateOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, name := range []string{"plain", "name with space", "pct%41", "q?mark#hash", "ünïcödé"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), name)
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "wallet.sqlite")
			if _, err := Open(ctx, path); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Open missing: got %v, want ErrNotFound", err)
			}
			s, err := Create(ctx, path)
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			if _, err := Create(ctx, path); !errors.Is(err, ErrExists) {
				t.Fatalf("Create twice: got %v, want ErrExists", err)
			}
			if err := s.Update(ctx, func(tx *Tx) error { return tx.PutMeta("k", []byte("v")) }); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			// The file is where it was asked to be, under its literal name.
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("database file: %v", err)
			}
			s, err = Open(ctx, path)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			snap, err := s.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if string(snap.Meta["k"]) != "v" {
				t.Fatalf("meta after reopen: %q", snap.Meta["k"])
			}
		})
	}
}

func TestPragmas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Create(ctx, filepath.Join(t.TempDir(), "w.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for pragma, want := range map[string]string{
		"journal_mode": "wal",
		"synchronous":  "2",
		"foreign_keys": "1",
		"busy_timeout": strconv.Itoa(busyTimeoutMS),
		"user_version": strconv.Itoa(SchemaVersion()),
	} {
		var got string
		if err := s.db.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if !strings.EqualFold(got, want) {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

func sampleDescriptor(n int) Descriptor {
	pub := fmt.Sprintf("wpkh(key%d/*)#checksum", n)
	return Descriptor{
		ID: sha256.Sum256([]byte(pub)), Public: pub, Ranged: true,
		RangeStart: int64(n), RangeEnd: int64(n + 1000), NextIndex: int64(n + 3),
		Timestamp: 1700000000 + int64(n), Cache: []byte{byte(n), 1, 2},
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.sqlite")
	s, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	d1, d2 := sampleDescriptor(1), sampleDescriptor(2)
	d2.Ranged, d2.RangeStart, d2.RangeEnd, d2.NextIndex, d2.Cache = false, 0, 0, 0, nil
	err = s.Update(ctx, func(tx *Tx) error {
		for _, d := range []Descriptor{d1, d2} {
			if _, err := tx.PutDescriptor(d); err != nil {
				return err
			}
		}
		if err := tx.PutSecret(Secret{DescriptorID: d1.ID, KeyID: []byte{2, 3}, Secret: []byte{9}}); err != nil {
			return err
		}
		if err := tx.PutChunk(Chunk{DescriptorID: d1.ID, Chunk: 0, FirstIndex: 1, Data: make([]byte, 80)}); err != nil {
			return err
		}
		if err := tx.SetActive(Active{OutputType: "bech32", Internal: true, DescriptorID: d1.ID}); err != nil {
			return err
		}
		if err := tx.PutLabel(Label{Script: []byte{0, 20}, Label: strp("lab"), Purpose: "receive"}); err != nil {
			return err
		}
		return tx.PutLabel(Label{Script: []byte{0, 21}, Purpose: "receive"})
	})
	if err != nil {
		t.Fatal(err)
	}
	// Update an existing descriptor: the sequence number stays.
	d1b := d1
	d1b.RangeEnd, d1b.Timestamp = 5000, 1
	err = s.Update(ctx, func(tx *Tx) error {
		seq, err := tx.PutDescriptor(d1b)
		if err != nil {
			return err
		}
		if seq != 1 {
			return fmt.Errorf("seq of updated descriptor = %d, want 1", seq)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d1b.Seq, d2.Seq = 1, 2
	if !reflect.DeepEqual(snap.Descriptors, []Descriptor{d1b, d2}) {
		t.Errorf("descriptors:\n got %+v\nwant %+v", snap.Descriptors, []Descriptor{d1b, d2})
	}
	if len(snap.Secrets) != 1 || snap.Secrets[0].Secret[0] != 9 || snap.Secrets[0].DescriptorID != d1.ID {
		t.Errorf("secrets: %+v", snap.Secrets)
	}
	if len(snap.Chunks) != 1 || len(snap.Chunks[0].Data) != 80 || snap.Chunks[0].FirstIndex != 1 {
		t.Errorf("chunks: %+v", snap.Chunks)
	}
	if !reflect.DeepEqual(snap.Active, []Active{{OutputType: "bech32", Internal: true, DescriptorID: d1.ID}}) {
		t.Errorf("active: %+v", snap.Active)
	}
	if len(snap.Labels) != 2 {
		t.Fatalf("labels: %+v", snap.Labels)
	}
	for _, l := range snap.Labels {
		switch l.Script[1] {
		case 20:
			if l.Label == nil || *l.Label != "lab" {
				t.Errorf("label: %+v", l)
			}
		case 21:
			if l.Label != nil {
				t.Errorf("change entry has a label: %q", *l.Label)
			}
		}
	}
}

func TestUpdateRollsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Create(ctx, filepath.Join(t.TempDir(), "w.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	boom := errors.New("boom")
	err = s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.PutDescriptor(sampleDescriptor(1)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update: got %v, want boom", err)
	}
	// A foreign key violation fails the statement, and the transaction.
	var missing DescriptorID
	err = s.Update(ctx, func(tx *Tx) error {
		return tx.PutSecret(Secret{DescriptorID: missing, KeyID: []byte{1}, Secret: []byte{1}})
	})
	if !errors.Is(err, ErrDatabase) {
		t.Fatalf("secret of a missing descriptor: got %v, want ErrDatabase", err)
	}
	snap, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Descriptors) != 0 || len(snap.Secrets) != 0 {
		t.Fatalf("rolled back writes are visible: %+v", snap)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.sqlite")
	s, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion()+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, path); !errors.Is(err, ErrSchema) {
		t.Fatalf("Open of a newer schema: got %v, want ErrSchema", err)
	}
}

func TestNotADatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "w.sqlite")
	if err := os.WriteFile(path, []byte(strings.Repeat("not sqlite ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), path); err == nil {
		t.Fatal("Open of a text file succeeded")
	}
}

func TestBackupWhileOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Create(ctx, filepath.Join(dir, "w.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 20; i++ {
		d := sampleDescriptor(i)
		if err := s.Update(ctx, func(tx *Tx) error {
			_, err := tx.PutDescriptor(d)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	dest := filepath.Join(dir, "backup.sqlite")
	if err := s.Backup(ctx, dest); err != nil {
		t.Fatal(err)
	}
	if err := s.Backup(ctx, dest); !errors.Is(err, ErrExists) {
		t.Fatalf("backup over an existing file: got %v, want ErrExists", err)
	}
	// Writes after the backup do not reach it.
	if err := s.Update(ctx, func(tx *Tx) error {
		_, err := tx.PutDescriptor(sampleDescriptor(99))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, dest)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	snap, err := b.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Descriptors) != 20 {
		t.Fatalf("backup holds %d descriptors, want 20", len(snap.Descriptors))
	}
	for i, d := range snap.Descriptors {
		want := sampleDescriptor(i)
		want.Seq = int64(i + 1)
		if !reflect.DeepEqual(d, want) {
			t.Fatalf("backup descriptor %d = %+v, want %+v", i, d, want)
		}
	}
}

// TestCrashSafety runs a writer in a child process, kills it with SIGKILL
// while it commits, and checks that every commit it reported is in the file
// and that the file opens.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: spawns a child process")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.sqlite")
	s, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashWriter$")
	cmd.Env = append(os.Environ(), "STORE_CRASH_WRITER="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	committed := -1
	deadline := time.Now().Add(30 * time.Second)
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, "committed "); ok {
			committed, _ = strconv.Atoi(n)
			if committed >= 40 {
				break
			}
		}
		if time.Now().After(deadline) {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if committed < 0 {
		t.Fatal("writer reported no commit")
	}

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("open after kill: %v", err)
	}
	defer s.Close()
	snap, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	have := map[DescriptorID]bool{}
	for _, d := range snap.Descriptors {
		have[d.ID] = true
	}
	chunks := map[DescriptorID]int{}
	for _, c := range snap.Chunks {
		chunks[c.DescriptorID]++
	}
	for i := 0; i <= committed; i++ {
		d := sampleDescriptor(i)
		if !have[d.ID] {
			t.Fatalf("commit %d reported but missing after kill", i)
		}
		if chunks[d.ID] != 64 {
			t.Fatalf("commit %d has %d of its 64 chunks", i, chunks[d.ID])
		}
	}
	// Whatever the child had in flight is either whole or absent.
	for id, n := range chunks {
		if n != 64 || !have[id] {
			t.Fatalf("partial element: %d chunks, descriptor present %v", n, have[id])
		}
	}
}

// TestCrashWriter is the child of TestCrashSafety; it does nothing unless
// started by it.
func TestCrashWriter(t *testing.T) {
	path := os.Getenv("STORE_CRASH_WRITER")
	if path == "" {
		return
	}
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	data := make([]byte, 8192)
	for i := 0; ; i++ {
		d := sampleDescriptor(i)
		err := s.Update(ctx, func(tx *Tx) error {
			if _, err := tx.PutDescriptor(d); err != nil {
				return err
			}
			for c := int64(0); c < 64; c++ {
				if err := tx.PutChunk(Chunk{DescriptorID: d.ID, Chunk: c, FirstIndex: c * 1024, Data: data}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			fmt.Println("update:", err)
			os.Exit(1)
		}
		fmt.Printf("committed %d\n", i)
	}
}
