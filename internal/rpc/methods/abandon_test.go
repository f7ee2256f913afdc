package methods

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/safego"
)

// rawPost is a POST of body with the test server's credentials.
func rawPost(body string) string {
	return "POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic dTpw\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// TestAbandonedDeriveAddressesStop: 16 clients (as many as -rpcthreads)
// ask deriveaddresses of wsh(multi(1, 20 ranged xpubs)) over [0, 999999]
// and hang up. Their calls stop, so that echo answers within a second
// and the heap stays small; they used to run on, holding every worker
// and about a gigabyte.
func TestAbandonedDeriveAddressesStop(t *testing.T) {
	d := &Deps{Net: &chaincfg.RegressionNetParams}
	auth := rpc.NewAuthenticator()
	auth.AddPassword("u", "p")
	s, err := rpc.NewServer(rpc.Config{Methods: []*rpc.Method{newEcho(d), newDeriveAddresses(d)},
		Auth: auth, MapError: MapError, Threads: rpc.DefaultThreads})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	safego.Go("test RPC server", func() error { return s.Serve(l) })
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	addr := l.Addr().String()

	keys := make([]string, 20)
	for i := range keys {
		seed := make([]byte, 32)
		seed[0] = byte(i + 1)
		m, err := hdkeychain.NewMaster(seed, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		pub, err := m.Neuter()
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = pub.String() + "/*"
	}
	desc := descriptor.AddChecksum("wsh(multi(1," + strings.Join(keys, ",") + "))")
	call := rawPost(fmt.Sprintf(`{"method":"deriveaddresses","params":[%q,[0,999999]],"id":1}`, desc))

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	peak := before.HeapInuse
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}

	var conns []net.Conn
	for range rpc.DefaultThreads {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, call); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// Every worker busy with a big call, then every client gone.
	until(t, 60*time.Second, func() bool { sample(); return len(s.Info().ActiveCommands) == rpc.DefaultThreads })
	time.Sleep(300 * time.Millisecond)
	for _, c := range conns {
		c.Close()
	}

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	c.SetDeadline(start.Add(20 * time.Second))
	io.WriteString(c, rawPost(`{"method":"echo","params":["still here"],"id":2}`))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("echo after the hang-ups: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	took := time.Since(start)
	if want := `{"result":["still here"],"error":null,"id":2}` + "\n"; string(body) != want {
		t.Errorf("echo: %q", body)
	}
	// Unchecked, the abandoned ranges would hold every worker for many
	// minutes; a few seconds leaves room for a loaded CI machine.
	if took > 5*time.Second {
		t.Errorf("echo took %v after the hang-ups", took)
	}
	until(t, 15*time.Second, func() bool { sample(); return len(s.Info().ActiveCommands) == 0 })
	// A while later nothing has grown: the calls are gone, not running on.
	for range 10 {
		time.Sleep(50 * time.Millisecond)
		sample()
	}
	grown := int64(peak) - int64(before.HeapInuse)
	t.Logf("echo answered in %v; heap peak %d MiB above the start", took, grown>>20)
	if grown > 256<<20 {
		t.Errorf("heap grew by %d MiB", grown>>20)
	}
}

// until polls cond every few milliseconds until it holds or d passes.
func until(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
