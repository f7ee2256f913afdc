package node_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/internal/node"
	"github.com/descwallet/descwallet/internal/rpc/rpctest"
	"github.com/descwallet/descwallet/internal/testenv"
	"github.com/descwallet/descwallet/internal/testvec"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.CleanupBuilds()
	os.Exit(code)
}

// inProcess is a node started in this process on a free loopback port.
type inProcess struct {
	n    *node.Node
	addr string
	cfg  *node.Config
}

// startInProcess starts a regtest node in a fresh data dir with the given
// extra arguments; it is stopped when the test ends.
func startInProcess(t testing.TB, extra ...string) *inProcess {
	t.Helper()
	dir := t.TempDir()
	for try := 0; ; try++ {
		port, err := testenv.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		argv := append([]string{"-regtest", "-datadir=" + dir, "-rpcport=" + strconv.Itoa(port)}, extra...)
		cfg, err := node.LoadConfig(argv)
		if err != nil {
			t.Fatal(err)
		}
		n := node.New(cfg)
		if err := n.Start(context.Background()); err != nil {
			if try < 3 && strings.Contains(err.Error(), "unable to bind") {
				continue
			}
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := n.Stop(); err != nil {
				t.Error(err)
			}
		})
		return &inProcess{n: n, addr: "127.0.0.1:" + strconv.Itoa(port), cfg: cfg}
	}
}

// cookieAuth reads a node's cookie as an Authorization value.
func cookieAuth(t testing.TB, netDir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(netDir, ".cookie"))
	if err != nil {
		t.Fatal(err)
	}
	return "Basic " + base64.StdEncoding.EncodeToString(data)
}

// replay runs every envelope case against the node its "node" field names
// and reports mismatches; cases waiting on a missing feature are logged.
func replay(t *testing.T, userpassAddr, cookieAddr, cookie string) {
	cases := rpctest.Load(t)
	if len(cases) == 0 {
		t.Fatal("empty envelope corpus")
	}
	ran := 0
	for i := range cases {
		c := &cases[i]
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			if f, ok := testvec.Pending(c.ID); ok {
				t.Logf("pending feature %s", f)
				return
			}
			addr := userpassAddr
			if c.Node == "cookie" {
				addr = cookieAddr
			}
			r, err := c.Do(addr, cookie)
			if err != nil {
				t.Fatalf("%s: %v", c.Summary(), err)
			}
			if diffs := c.Compare(r); len(diffs) > 0 {
				t.Errorf("%s\n%s", c.Summary(), strings.Join(diffs, "\n"))
			}
		})
		ran++
	}
}

// TestEnvelopeInProcess replays the envelope corpus against nodes started
// in this process (fast).
func TestEnvelopeInProcess(t *testing.T) {
	t.Parallel()
	up := startInProcess(t, "-rpcuser=u", "-rpcpassword=p")
	ck := startInProcess(t)
	replay(t, up.addr, ck.addr, cookieAuth(t, ck.cfg.NetDir))
}

// TestEnvelopeDaemon replays the envelope corpus against the real
// descwalletd binary.
func TestEnvelopeDaemon(t *testing.T) {
	t.Parallel()
	up := testenv.StartDaemon(t, nil)
	ck := testenv.StartDaemon(t, &testenv.DaemonOptions{Cookie: true})
	auth, err := ck.CookieAuth()
	if err != nil {
		t.Fatal(err)
	}
	replay(t, up.Addr, ck.Addr, auth)
}

// TestReplayDetectsMismatch guards the replayer itself: an altered record
// must not compare equal.
func TestReplayDetectsMismatch(t *testing.T) {
	t.Parallel()
	up := startInProcess(t, "-rpcuser=u", "-rpcpassword=p")
	for _, c := range rpctest.Load(t) {
		if c.ID != "legacy-absent-version-int-id" {
			continue
		}
		r, err := c.Do(up.addr, "")
		if err != nil {
			t.Fatal(err)
		}
		if d := c.Compare(r); len(d) != 0 {
			t.Fatalf("unaltered case differs: %v", d)
		}
		c.Expect.BodyRaw = strings.Replace(c.Expect.BodyRaw, "hello", "hellO", 1)
		c.Expect.Headers["Content-Type"] = "text/plain"
		if d := c.Compare(r); len(d) != 2 {
			t.Fatalf("altered case: %d differences, want 2: %v", len(d), d)
		}
		return
	}
	t.Fatal("case legacy-absent-version-int-id not in the corpus")
}
