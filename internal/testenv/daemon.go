package testenv

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/descwallet/descwallet/internal/safego"
)

// Timeouts of the daemon harness: generous, as the machines that run the
// tests are often loaded many times over and a healthy node's start or exit
// ends the wait at once (one that exits early is seen at once too).
const (
	daemonStartTimeout = 2 * time.Minute
	daemonStopTimeout  = 2 * time.Minute
	daemonStartTries   = 3
)

var (
	daemonOnce  sync.Once
	daemonDir   string
	daemonBin   string
	daemonBuild error
)

// DaemonPath returns the path of a descwalletd built from this working
// tree. It is built once per test binary into a temporary folder, which
// CleanupBuilds removes (call it from TestMain after m.Run).
// DESCWALLET_DAEMON overrides it with a prebuilt binary.
func DaemonPath() (string, error) {
	daemonOnce.Do(func() {
		if p := os.Getenv("DESCWALLET_DAEMON"); p != "" {
			daemonBin = p
			_, daemonBuild = os.Stat(p)
			return
		}
		dir, err := os.MkdirTemp("", "descwalletd-build-")
		if err != nil {
			daemonBuild = err
			return
		}
		daemonDir = dir
		daemonBin = filepath.Join(dir, "descwalletd")
		cmd := exec.Command("go", "build", "-o", daemonBin, "./cmd/descwalletd")
		cmd.Dir = RepoRoot()
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			daemonBuild = fmt.Errorf("go build ./cmd/descwalletd: %v\n%s", err, out)
		}
	})
	return daemonBin, daemonBuild
}

// CleanupBuilds removes the binaries DaemonPath built.
func CleanupBuilds() {
	if daemonDir != "" {
		os.RemoveAll(daemonDir)
	}
}

// DaemonOptions tunes StartDaemon. The zero value is a regtest node with
// user "u" and password "p" in a fresh data dir.
type DaemonOptions struct {
	// Cookie selects cookie authentication (no -rpcuser/-rpcpassword).
	Cookie bool
	// User and Pass are the credentials when Cookie is false; empty means
	// "u" and "p".
	User, Pass string
	// DataDir is the data dir; empty means a fresh temporary one.
	DataDir string
	// Args are extra command-line arguments.
	Args []string
	// NoWait returns as soon as the process started, without waiting for
	// RPC (for tests of start-up failures; see Wait).
	NoWait bool
}

// Daemon is a running descwalletd on regtest, listening on a free loopback
// port. It is stopped when the test ends.
type Daemon struct {
	// Client reaches the node's RPC server with its credentials.
	*Client
	// Addr is "127.0.0.1:<port>", URL "http://127.0.0.1:<port>/".
	Addr, URL string
	// Port is the RPC port.
	Port int
	// DataDir is the data dir, NetDir its regtest folder.
	DataDir, NetDir string

	tb     testing.TB
	cmd    *exec.Cmd
	out    *lockedBuffer
	done   chan struct{}
	err    error
	cookie bool
	killed bool
}

// lockedBuffer collects a child's output.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StartDaemon builds (once) and starts descwalletd. It fails the test when
// the node does not come up.
func StartDaemon(tb testing.TB, opts *DaemonOptions) *Daemon {
	tb.Helper()
	if opts == nil {
		opts = &DaemonOptions{}
	}
	bin, err := DaemonPath()
	if err != nil {
		tb.Fatal(err)
	}
	dataDir := opts.DataDir
	if dataDir == "" {
		dataDir = tb.TempDir()
	}
	var last error
	for try := 0; try < daemonStartTries; try++ {
		port, err := FreePort()
		if err != nil {
			tb.Fatal(err)
		}
		d := &Daemon{tb: tb, Port: port, Addr: "127.0.0.1:" + strconv.Itoa(port),
			DataDir: dataDir, NetDir: filepath.Join(dataDir, "regtest"), cookie: opts.Cookie}
		d.URL = "http://" + d.Addr + "/"
		args := []string{"-regtest", "-datadir=" + dataDir, "-rpcport=" + strconv.Itoa(port)}
		user, pass := opts.User, opts.Pass
		if !opts.Cookie {
			if user == "" {
				user = "u"
			}
			if pass == "" {
				pass = "p"
			}
			args = append(args, "-rpcuser="+user, "-rpcpassword="+pass)
		}
		args = append(args, opts.Args...)
		d.Client = &Client{URL: d.URL, User: user, Pass: pass}
		if err := d.start(bin, args); err != nil {
			tb.Fatal(err)
		}
		if opts.NoWait {
			tb.Cleanup(func() { d.Stop() })
			return d
		}
		if err := d.Wait(); err != nil {
			d.Stop()
			last = err
			if strings.Contains(d.Output(), "unable to bind") {
				continue // the port was taken meanwhile
			}
			tb.Fatalf("descwalletd did not start: %v\n%s", err, d.Output())
		}
		tb.Cleanup(func() {
			if err := d.Stop(); err != nil {
				tb.Errorf("descwalletd stop: %v\n%s", err, d.Output())
			}
		})
		return d
	}
	tb.Fatalf("descwalletd did not start after %d tries: %v", daemonStartTries, last)
	return nil
}

func (d *Daemon) start(bin string, args []string) error {
	d.out = &lockedBuffer{}
	d.cmd = exec.Command(bin, args...)
	d.cmd.Stdout, d.cmd.Stderr = d.out, d.out
	// Every goroutine in a crash's or Goroutines' dump.
	d.cmd.Env = append(os.Environ(), "GOTRACEBACK=all")
	configureChild(d.cmd)
	if err := d.cmd.Start(); err != nil {
		return err
	}
	d.done = make(chan struct{})
	safego.Go("descwalletd wait", func() error {
		defer close(d.done)
		d.err = d.cmd.Wait()
		return nil
	})
	return nil
}

// Wait waits until the node accepts connections (and, with cookie auth,
// has written its cookie), or fails when the process exits first.
func (d *Daemon) Wait() error {
	return Poll(daemonStartTimeout, func() error {
		select {
		case <-d.done:
			return Permanent(fmt.Errorf("descwalletd exited: %v", d.err))
		default:
		}
		c, err := net.DialTimeout("tcp", d.Addr, time.Second)
		if err != nil {
			return err
		}
		c.Close()
		if d.cookie {
			data, err := os.ReadFile(d.CookiePath())
			if err != nil {
				return err
			}
			user, pass, _ := strings.Cut(string(data), ":")
			d.Client.User, d.Client.Pass = user, pass
		}
		return nil
	})
}

// CookiePath is the default cookie file of the node.
func (d *Daemon) CookiePath() string { return filepath.Join(d.NetDir, ".cookie") }

// CookieAuth returns the Authorization header value for the cookie.
func (d *Daemon) CookieAuth() (string, error) {
	data, err := os.ReadFile(d.CookiePath())
	if err != nil {
		return "", err
	}
	return "Basic " + base64.StdEncoding.EncodeToString(data), nil
}

// Pid returns the node's process id (to read its /proc status).
func (d *Daemon) Pid() int { return d.cmd.Process.Pid }

// Output returns what the process wrote to stdout and stderr so far.
func (d *Daemon) Output() string { return d.out.String() }

// Exited returns a channel closed when the process has exited.
func (d *Daemon) Exited() <-chan struct{} { return d.done }

// ExitCode waits for the process to exit (within the stop timeout) and
// returns its exit code.
func (d *Daemon) ExitCode() (int, error) {
	select {
	case <-d.done:
	case <-time.After(daemonStopTimeout):
		return 0, errors.New("descwalletd did not exit")
	}
	if d.cmd.ProcessState == nil {
		return 0, d.err
	}
	return d.cmd.ProcessState.ExitCode(), nil
}

// Stop sends SIGTERM and waits for a clean exit, killing the process after
// the stop timeout. It is safe to call more than once.
func (d *Daemon) Stop() error {
	select {
	case <-d.done:
		return d.exitErr()
	default:
	}
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
		return d.exitErr()
	case <-time.After(daemonStopTimeout):
		d.cmd.Process.Kill()
		<-d.done
		return errors.New("descwalletd did not stop on SIGTERM; killed")
	}
}

// Goroutines ends the node with SIGQUIT and returns the stacks of its
// goroutines that run the project's code, for a test to show where a node
// that stopped answering waits. It returns "" when the node had exited.
func (d *Daemon) Goroutines() string {
	select {
	case <-d.done:
		return ""
	default:
	}
	d.killed = true
	before := len(d.out.String())
	d.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-d.done:
	case <-time.After(daemonStopTimeout):
		d.cmd.Process.Kill()
		<-d.done
	}
	dump := d.out.String()[before:]
	var kept []string
	for _, g := range strings.Split(dump, "\n\n") {
		if strings.HasPrefix(g, "goroutine ") && strings.Contains(g, "/descwallet/") {
			kept = append(kept, g)
		}
	}
	return strings.Join(kept, "\n\n")
}

// Kill ends the node with SIGKILL, as a crash or power loss would, and
// waits until the process is gone. Stop (and the test's clean-up) then
// report no error for the missing clean exit.
func (d *Daemon) Kill() {
	d.killed = true
	select {
	case <-d.done:
		return
	default:
	}
	d.cmd.Process.Kill()
	<-d.done
}

func (d *Daemon) exitErr() error {
	if d.killed {
		return nil
	}
	if d.cmd.ProcessState != nil && d.cmd.ProcessState.ExitCode() == 0 {
		return nil
	}
	return fmt.Errorf("descwalletd: %v", d.err)
}
