//go:build unix

package store

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenTwiceLocked opens one database twice, by its path and through a
// symbolic link to its folder: the second Open fails with ErrLocked until
// the first Store is closed.
func TestOpenTwiceLocked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "w", "wallet.sqlite")
	if err := os.Mkdir(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "w"), link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, filepath.Join(link, "wallet.sqlite")} {
		if _, err := Open(ctx, p); !errors.Is(err, ErrLocked) {
			t.Fatalf("second Open of %s: got %v, want ErrLocked", p, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, filepath.Join(link, "wallet.sqlite"))
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	if _, err := Open(ctx, path); !errors.Is(err, ErrLocked) {
		t.Fatalf("Open while open through the link: got %v, want ErrLocked", err)
	}
	s.Close()
}

// TestCreatePending checks that a database being created is invisible at
// its path until Publish, that Close before Publish leaves nothing, and
// that a remnant of a crashed creation does not block a new one.
func TestCreatePending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "wallet.sqlite")
	put := func(s *Store) {
		t.Helper()
		if err := s.Update(ctx, func(tx *Tx) error { return tx.PutMeta("k", []byte("v")) }); err != nil {
			t.Fatal(err)
		}
	}

	s, err := CreatePending(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	put(s)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("database visible before Publish: %v", err)
	}
	if _, err := CreatePending(ctx, path); !errors.Is(err, ErrLocked) {
		t.Fatalf("second CreatePending while the first runs: got %v, want ErrLocked", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "wallet.sqlite*"))
	if len(left) != 1 || left[0] != path+LockSuffix {
		t.Fatalf("Close before Publish left %v", left)
	}

	// A remnant of a crash (here a garbage pending file with a log) is
	// replaced.
	for _, f := range []string{path + PendingSuffix, path + PendingSuffix + "-wal"} {
		if err := os.WriteFile(f, []byte("half a database"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if removed, err := RemoveLeftovers(path); err != nil || !removed {
		t.Fatalf("RemoveLeftovers: %v %v", removed, err)
	}
	if removed, err := RemoveLeftovers(path); err != nil || removed {
		t.Fatalf("RemoveLeftovers again: %v %v", removed, err)
	}
	if err := os.WriteFile(path+PendingSuffix, []byte("half a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = CreatePending(ctx, path)
	if err != nil {
		t.Fatalf("CreatePending over a remnant: %v", err)
	}
	put(s)
	if _, err := RemoveLeftovers(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("RemoveLeftovers while creating: got %v, want ErrLocked", err)
	}
	if err := s.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	// The Store goes on working after Publish, at the final path.
	if err := s.Update(ctx, func(tx *Tx) error { return tx.PutMeta("k2", []byte("v2")) }); err != nil {
		t.Fatal(err)
	}
	if _, err := CreatePending(ctx, path); !errors.Is(err, ErrExists) {
		t.Fatalf("CreatePending over a database: got %v, want ErrExists", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	left, _ = filepath.Glob(filepath.Join(dir, "wallet.sqlite*"))
	if len(left) != 2 {
		t.Fatalf("files after Publish and Close: %v", left)
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
	if string(snap.Meta["k"]) != "v" || string(snap.Meta["k2"]) != "v2" {
		t.Fatalf("meta after Publish: %q", snap.Meta)
	}
}

// TestBackupFileMode checks that a backup is 0600 whatever the umask and
// that no temporary file stays beside it.
func TestBackupFileMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Create(ctx, filepath.Join(dir, "w.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(out, "backup.dat")
	if err := s.Backup(ctx, dest); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dest)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode %v, want 0600", st.Mode().Perm())
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("backup folder holds %v, want only backup.dat", names)
	}
}

const rewriteChildEnv = "STORE_REWRITE_CHILD"

// plainMarker is the secret the rewrite test overwrites.
var plainMarker = []byte("PLAINTEXT-SECRET-0123456789abcdef")

// TestRewritePendingAfterKill overwrites a secret with a rewrite marked in
// the same transaction, kills the writer before it rewrites the file, and
// checks that the secret is still in the files (so the search works) and
// that Open removes it before returning.
func TestRewritePendingAfterKill(t *testing.T) {
	if path := os.Getenv(rewriteChildEnv); path != "" {
		rewriteChild(path)
		return
	}
	if testing.Short() {
		t.Skip("-short: spawns a child process")
	}
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "wallet.sqlite")
	s, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRewritePendingAfterKill$", "-test.count=1")
	cmd.Env = append(os.Environ(), rewriteChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	ok := false
	for sc.Scan() {
		if sc.Text() == "overwritten" {
			ok = true
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !ok {
		t.Fatal("child did not overwrite the secret")
	}
	holds := func() []string {
		var in []string
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err == nil && bytes.Contains(data, plainMarker) {
				in = append(in, filepath.Base(f))
			}
		}
		return in
	}
	if in := holds(); len(in) == 0 {
		t.Fatal("the overwritten secret is in no file before the reopen: the search finds nothing")
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if in := holds(); len(in) != 0 {
		t.Fatalf("after Open the overwritten secret is still in %v", in)
	}
	if pending, err := s.rewritePending(ctx); err != nil || pending {
		t.Fatalf("rewrite still pending after Open: %v %v", pending, err)
	}
	snap, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Secrets) != 1 || !bytes.Equal(snap.Secrets[0].Secret, bytes.Repeat([]byte{0xEE}, 48)) {
		t.Fatalf("secrets after the reopen: %+v", snap.Secrets)
	}
}

// rewriteChild writes a plain secret, makes it reach the database file,
// overwrites it with a marked rewrite, and waits to be killed.
func rewriteChild(path string) {
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	var id DescriptorID
	id[0] = 9
	err = s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.PutDescriptor(Descriptor{ID: id, Public: "pkh(02aa)#x"}); err != nil {
			return err
		}
		return tx.PutSecret(Secret{DescriptorID: id, KeyID: []byte("k"), Secret: plainMarker})
	})
	if err == nil {
		// Without a checkpoint the plain page would only be in the log,
		// which the sealing commit does not rewrite either.
		err = s.Checkpoint(ctx)
	}
	if err == nil {
		err = s.Update(ctx, func(tx *Tx) error {
			if err := tx.PutSecret(Secret{DescriptorID: id, KeyID: []byte("k"), Secret: bytes.Repeat([]byte{0xEE}, 48)}); err != nil {
				return err
			}
			return tx.MarkRewrite()
		})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Println("overwritten")
	time.Sleep(time.Minute)
	os.Exit(3)
}
