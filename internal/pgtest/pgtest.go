// Package pgtest owns the PostgreSQL server of tests: it finds the
// server's binaries, initialises a cluster in a temporary folder and starts
// it on a free loopback port, as an unprivileged user when the tests run
// as root (PostgreSQL refuses to run as root). Each test gets a database
// of its own on one server shared by the test binary.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/descwallet/descwallet/internal/safego"
)

// InstallHint is what a test says when PostgreSQL is missing.
const InstallHint = "PostgreSQL is not installed: these tests need its server binaries (initdb, postgres) in PATH or " +
	"/usr/lib/postgresql/<version>/bin; on Debian or Ubuntu run: apt-get install postgresql"

// Server is a running PostgreSQL server in a temporary folder.
type Server struct {
	dir  string
	port int
	cmd  *exec.Cmd
	done chan struct{}

	mu sync.Mutex
	n  int // databases made so far
}

// binDir finds the folder holding initdb and postgres: PATH first, then
// the newest /usr/lib/postgresql/*/bin.
func binDir() (string, error) {
	return findBinDir(os.Getenv("PATH"), "/usr/lib/postgresql/*/bin")
}

// findBinDir is binDir over a PATH value and a pattern of versioned
// folders.
func findBinDir(path, pattern string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		if isFile(filepath.Join(dir, "initdb")) && isFile(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob(pattern)
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if isFile(filepath.Join(d, "initdb")) && isFile(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", errors.New(InstallHint)
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// runAs returns the credential to run the server with: none when the
// process is not root, else the user "nobody" (or the "postgres" user when
// there is no nobody).
func runAs() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"nobody", "postgres"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.Atoi(u.Uid)
		gid, err2 := strconv.Atoi(u.Gid)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: false, Groups: []uint32{}}, nil
	}
	return nil, errors.New("running as root and found no unprivileged user (nobody, postgres) to run PostgreSQL as")
}

// tempBase is the folder to make the server's folder in: the system's
// temporary folder, or /tmp when that one is too deep for the server's
// socket path (about 100 bytes) or, for a server run as another user, not
// open to others.
func tempBase(otherUser bool) string {
	base := os.TempDir()
	st, err := os.Stat(base)
	usable := err == nil && len(base) <= 60 && (!otherUser || st.Mode().Perm()&0o001 != 0)
	if !usable {
		if st, err := os.Stat("/tmp"); err == nil && st.IsDir() {
			return "/tmp"
		}
	}
	return base
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start initialises a cluster in a new temporary folder and starts its
// server on a free loopback port. Stop stops it and removes the folder.
func Start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	cred, err := runAs()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(tempBase(cred != nil), "pgtest-")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Server, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(err)
		}
	}
	data := filepath.Join(dir, "data")
	env := []string{"PATH=" + bin + ":/usr/bin:/bin", "LANG=C", "LC_ALL=C", "HOME=" + dir, "TZ=UTC"}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust",
		"-E", "UTF8", "--locale=C", "--no-sync")
	initdb.Dir = dir
	initdb.Env = env
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, out))
	}
	for attempt := 0; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return fail(err)
		}
		s := &Server{dir: dir, port: port, done: make(chan struct{})}
		logf, err := os.OpenFile(filepath.Join(dir, "server.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return fail(err)
		}
		// Durability settings are off: a test cluster is thrown away,
		// and the store's behaviour does not depend on them.
		s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-k", dir,
			"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
			"-c", "full_page_writes=off", "-c", "max_connections=300", "-c", "shared_buffers=32MB")
		s.cmd.Dir = dir
		s.cmd.Env = env
		s.cmd.Stdout, s.cmd.Stderr = logf, logf
		// The server dies with the test binary, even one that is killed.
		s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
		if err := s.cmd.Start(); err != nil {
			logf.Close()
			return fail(err)
		}
		logf.Close()
		safego.Go("pgtest server wait", func() error {
			defer close(s.done)
			return s.cmd.Wait()
		})
		if err := s.waitReady(30 * time.Second); err != nil {
			s.cmd.Process.Signal(syscall.SIGQUIT)
			<-s.done
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			if attempt < 3 && strings.Contains(string(log), "could not bind") {
				continue
			}
			return fail(fmt.Errorf("postgres did not start: %v\n%s", err, log))
		}
		return s, nil
	}
}

// waitReady waits until the server accepts connections or exits.
func (s *Server) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, s.dsn("postgres"))
		cancel()
		if err == nil {
			c.Close(context.Background())
			return nil
		}
		select {
		case <-s.done:
			return errors.New("server exited")
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return err
		}
	}
}

func (s *Server) dsn(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// Port returns the server's TCP port.
func (s *Server) Port() int { return s.port }

// NewDatabase creates an empty database and returns its connection string.
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	s.mu.Lock()
	s.n++
	name := fmt.Sprintf("t%d", s.n)
	s.mu.Unlock()
	c, err := pgx.Connect(ctx, s.dsn("postgres"))
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	return s.dsn(name), nil
}

// Stop stops the server (fast shutdown) and removes its folder.
func (s *Server) Stop() {
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	os.RemoveAll(s.dir)
}

var (
	sharedMu  sync.Mutex
	shared    *Server
	sharedErr error
	atStop    []func()
)

// AtStop registers f to run after the tests, before Main stops the shared
// server (to close pools opened on it).
func AtStop(f func()) {
	sharedMu.Lock()
	atStop = append(atStop, f)
	sharedMu.Unlock()
}

// DSN returns the connection string of a new empty database on the test
// binary's shared server, starting the server at the first call. Where
// PostgreSQL is missing the test fails saying how to install it; under
// -short it is skipped, as are the other tests that start processes. A
// package that calls DSN stops the server from its TestMain with Main.
func DSN(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts a PostgreSQL server")
	}
	sharedMu.Lock()
	if shared == nil && sharedErr == nil {
		shared, sharedErr = Start()
	}
	s, err := shared, sharedErr
	sharedMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn, err := s.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// Main runs the tests of m and then stops the shared server, if one was
// started; use it as os.Exit(pgtest.Main(m)) in TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	sharedMu.Lock()
	fs := atStop
	atStop = nil
	sharedMu.Unlock()
	for _, f := range fs {
		f()
	}
	sharedMu.Lock()
	if shared != nil {
		shared.Stop()
		shared = nil
	}
	sharedMu.Unlock()
	return code
}
