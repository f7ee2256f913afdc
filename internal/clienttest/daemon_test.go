package clienttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/descwallet/descwallet/internal/testenv"
)

// daemon is a descwalletd started for one test on regtest.
type daemon struct {
	Port       int
	DataDir    string
	User, Pass string // empty Pass: cookie authentication
	Client     *testenv.Client
	cmd        *exec.Cmd
	done       chan struct{}
}

// URL returns the daemon's base URL.
func (d *daemon) URL() string {
	return "http://127.0.0.1:" + strconv.Itoa(d.Port) + "/"
}

// CookiePath returns where the daemon writes its cookie.
func (d *daemon) CookiePath() string {
	return filepath.Join(d.DataDir, "regtest", ".cookie")
}

// startDaemon starts descwalletd on regtest on a free port. With a
// non-empty pass it uses -rpcuser/-rpcpassword, otherwise the cookie. It is
// stopped when the test ends.
func startDaemon(t *testing.T, user, pass string) *daemon {
	t.Helper()
	d := &daemon{DataDir: t.TempDir(), User: user, Pass: pass, done: make(chan struct{})}
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	d.Port = port
	args := []string{"-regtest", "-datadir=" + d.DataDir, "-rpcport=" + strconv.Itoa(port)}
	if pass != "" {
		args = append(args, "-rpcuser="+user, "-rpcpassword="+pass)
	}
	out, err := os.Create(filepath.Join(d.DataDir, "console.log"))
	if err != nil {
		t.Fatal(err)
	}
	d.cmd = exec.Command(filepath.Join(binDir, "descwalletd"), args...)
	d.cmd.Stdout, d.cmd.Stderr = out, out
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		d.cmd.Wait()
		out.Close()
		close(d.done)
	}()
	t.Cleanup(func() {
		d.cmd.Process.Signal(os.Interrupt)
		select {
		case <-d.done:
		case <-time.After(30 * time.Second):
			d.cmd.Process.Kill()
			<-d.done
		}
	})

	err = testenv.Poll(30*time.Second, func() error {
		select {
		case <-d.done:
			log, _ := os.ReadFile(filepath.Join(d.DataDir, "console.log"))
			return testenv.Permanent(fmt.Errorf("descwalletd exited:\n%s", log))
		default:
		}
		c := &testenv.Client{URL: d.URL(), User: user, Pass: pass}
		if pass == "" {
			cookie, err := os.ReadFile(d.CookiePath())
			if err != nil {
				return err
			}
			u, p, _ := cutColon(string(cookie))
			c.User, c.Pass = u, p
		}
		if _, err := c.Call("uptime"); err != nil {
			return err
		}
		d.Client = c
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// cutColon splits "user:pass" at the first colon.
func cutColon(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
