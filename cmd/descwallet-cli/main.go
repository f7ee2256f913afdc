package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Defaults of the client.
const (
	defaultRPCConnect    = "127.0.0.1"
	defaultClientTimeout = 900 // seconds
	defaultConfFile      = "descwallet.conf"
	cookieFileName       = ".cookie"

	// maxReplySize bounds the reply the client reads.
	maxReplySize = 1 << 30

	// version is printed by -version.
	version = "0.1.0"
)

// rpcInWarmup is the code a node answers while starting; -rpcwait waits it
// out.
const rpcInWarmup = -28

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// cli is one invocation of the client.
type cli struct {
	set    *settings
	net    network
	stdin  *bufio.Reader
	stdout io.Writer
	stderr io.Writer

	dataDir  string
	confPath string
}

// run executes the command line and returns the process exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{
		set:    newSettings(),
		stdin:  bufio.NewReader(stdin),
		stdout: stdout,
		stderr: stderr,
	}
	rest, status, done := c.init(args)
	if done {
		return status
	}
	out, status := c.command(rest)
	if out != "" {
		w := c.stdout
		if status != 0 {
			w = c.stderr
		}
		fmt.Fprintf(w, "%s\n", out)
	}
	return status
}

// init parses options, the data directory, the configuration file and the
// network. done is true when the process should exit with status at once.
func (c *cli) init(args []string) (rest []string, status int, done bool) {
	rest, err := c.set.parseCommandLine(args)
	if err != nil {
		fmt.Fprintf(c.stderr, "Error parsing command line arguments: %s\n", err)
		return nil, 1, true
	}
	s := c.set
	help := s.isSet("?") || s.isSet("h") || s.isSet("help")
	if len(args) == 0 || help || s.isSet("version") {
		fmt.Fprintf(c.stdout, "descwallet RPC client version %s\n", version)
		if !s.isSet("version") {
			fmt.Fprint(c.stdout, usage())
		}
		if len(args) == 0 {
			fmt.Fprintf(c.stderr, "Error: too few parameters\n")
			return nil, 1, true
		}
		return nil, 0, true
	}

	c.dataDir = defaultDataDir()
	if d, ok := s.cmdline["datadir"]; ok {
		c.dataDir = expandHome(d[len(d)-1])
		if fi, err := os.Stat(c.dataDir); err != nil || !fi.IsDir() {
			fmt.Fprintf(c.stderr, "Error: Specified data directory \"%s\" does not exist.\n", d[len(d)-1])
			return nil, 1, true
		}
	}
	conf, explicit := defaultConfFile, false
	if v, ok := s.cmdline["conf"]; ok {
		conf, explicit = expandHome(v[len(v)-1]), true
	}
	if !filepath.IsAbs(conf) {
		conf = filepath.Join(c.dataDir, conf)
	}
	c.confPath = conf
	if err := s.readConfigFile(conf); err != nil {
		switch {
		case errors.Is(err, os.ErrNotExist) && !explicit:
		case errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission):
			fmt.Fprintf(c.stderr, "Error reading configuration file: specified config file \"%s\" could not be opened.\n", conf)
			return nil, 1, true
		default:
			fmt.Fprintf(c.stderr, "Error reading configuration file: %s\n", err)
			return nil, 1, true
		}
	}
	if c.net, err = s.selectNetwork(); err != nil {
		fmt.Fprintf(c.stderr, "Error: %s\n", err)
		return nil, 1, true
	}
	return rest, 0, false
}

// usage returns the -help text after the version line.
func usage() string {
	var b strings.Builder
	b.WriteString("\nUsage:  descwallet-cli [options] <command> [params]  Send a command to descwalletd\n" +
		"or:     descwallet-cli [options] -named <command> [name=value]...  Send a command with named arguments\n" +
		"or:     descwallet-cli [options] help                List commands\n" +
		"or:     descwallet-cli [options] help <command>      Get help for a command\n\nOptions:\n\n")
	names := make([]string, 0, len(knownOptions))
	for n, o := range knownOptions {
		if o.help != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		o := knownOptions[n]
		flag := "-" + n
		if o.arg != "" {
			flag += "=" + o.arg
		}
		fmt.Fprintf(&b, "  %s\n       %s\n\n", flag, o.help)
	}
	return b.String()
}

// command runs the call and returns what to print and the exit status.
func (c *cli) command(args []string) (string, int) {
	s := c.set
	if s.getBool("stdinrpcpass", false) {
		line, ok := c.readLine()
		if !ok {
			return "error: -stdinrpcpass specified but failed to read from standard input", 1
		}
		s.cmdline["rpcpassword"] = []string{line}
	}
	if s.getBool("stdinwalletpassphrase", false) {
		if len(args) < 1 || !strings.HasPrefix(args[0], "walletpassphrase") {
			return "error: -stdinwalletpassphrase is only applicable for walletpassphrase(change)", 1
		}
		line, ok := c.readLine()
		if !ok {
			return "error: -stdinwalletpassphrase specified but failed to read from standard input", 1
		}
		args = append([]string{args[0], line}, args[1:]...)
	}
	if s.getBool("stdin", false) {
		for {
			line, ok := c.readLine()
			if !ok {
				break
			}
			args = append(args, line)
		}
	}
	if s.isSet("generate") && s.isSet("getinfo") {
		return "error: Only one of -generate, -getinfo may be specified.", 1
	}
	if s.getBool("getinfo", false) {
		return c.getinfo(args)
	}
	if s.getBool("generate", false) {
		return c.generate(args)
	}
	if len(args) < 1 {
		return "error: too few parameters (need at least command)", 1
	}
	method, params := args[0], args[1:]
	var (
		p   json.RawMessage
		err error
	)
	if s.getBool("named", false) {
		p, err = convertNamed(method, params)
	} else {
		p, err = convertPositional(method, params)
	}
	if err != nil {
		return "error: " + err.Error(), 1
	}
	res, out, code, ok := c.callResult(method, p)
	if !ok {
		return out, code
	}
	out, _ = formatResult(res)
	return out, 0
}

// callResult makes the call (callWithWait) and returns its result, or
// false with what bitcoin-cli prints and exits with when the call failed
// or its reply is no JSON-RPC reply.
func (c *cli) callResult(method string, params json.RawMessage) (value, string, int, bool) {
	reply, err := c.callWithWait(method, params)
	if err != nil {
		return nil, "error: " + err.Error(), 1, false
	}
	obj, ok := reply.(*object)
	if !ok {
		return nil, "error: expected reply to have result, error and id properties", 1, false
	}
	if e, _ := obj.get("error"); e != nil {
		out, code := formatError(e)
		return nil, out, code, false
	}
	res, _ := obj.get("result")
	return res, "", 0, true
}

// readLine reads one line of standard input without its line ending.
func (c *cli) readLine() (string, bool) {
	line, err := c.stdin.ReadString('\n')
	if err != nil && line == "" {
		return "", false
	}
	line = strings.TrimSuffix(line, "\n")
	return strings.TrimSuffix(line, "\r"), true
}

// connError is a failure to reach the server; -rpcwait retries it.
type connError struct{ msg string }

func (e *connError) Error() string { return e.msg }

// callWithWait makes the call, retrying every second while the server is
// unreachable or warming up when -rpcwait is set.
func (c *cli) callWithWait(method string, params json.RawMessage) (value, error) {
	wait := c.set.getBool("rpcwait", false)
	timeout := c.set.getInt("rpcwaittimeout", 0)
	deadline := time.Now().Add(time.Duration(timeout) * time.Second)
	for {
		reply, err := c.call(method, params)
		if err == nil && wait {
			if obj, ok := reply.(*object); ok {
				if e, ok := obj.get("error"); ok {
					if eo, ok := e.(*object); ok {
						if code, _ := eo.get("code"); valueText(code) == strconv.Itoa(rpcInWarmup) {
							err = &connError{"server in warmup"}
						}
					}
				}
			}
		}
		var ce *connError
		if !errors.As(err, &ce) {
			return reply, err
		}
		if !wait || (timeout > 0 && !time.Now().Before(deadline)) {
			return nil, fmt.Errorf("timeout on transient error: %s", ce.msg)
		}
		time.Sleep(time.Second)
	}
}

// endpoint returns host, port and URL path for the call.
func (c *cli) endpoint() (string, int, string) {
	host, port := splitHostPort(c.set.getString("rpcconnect", defaultRPCConnect), c.net.port)
	if v, ok := c.set.get("rpcport"); ok {
		port = int(atoi(v))
	}
	path := "/"
	if w, ok := c.set.get("rpcwallet"); ok {
		path = "/wallet/" + uriEncode(w)
	}
	return host, port, path
}

// splitHostPort splits "host", "host:port", "[v6]" or "[v6]:port",
// keeping def when no valid port is given.
func splitHostPort(in string, def int) (string, int) {
	host, port := in, def
	colon := strings.LastIndexByte(in, ':')
	// A port is present when the last colon follows a bracketed address or
	// is the only colon.
	if colon >= 0 && (strings.HasPrefix(in, "[") && strings.Contains(in[:colon], "]") ||
		!strings.HasPrefix(in, "[") && strings.Count(in, ":") == 1) {
		if n, err := strconv.ParseUint(in[colon+1:], 10, 16); err == nil && n > 0 {
			host, port = in[:colon], int(n)
		}
	}
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	return host, port
}

// uriEncode percent-encodes everything but unreserved characters.
func uriEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' ||
			ch == '-' || ch == '.' || ch == '_' || ch == '~' {
			b.WriteByte(ch)
		} else {
			fmt.Fprintf(&b, "%%%02X", ch)
		}
	}
	return b.String()
}

// credentials returns "user:password" and whether it came from a cookie
// that could not be read (then it is empty).
func (c *cli) credentials() (string, bool) {
	if pw := c.set.getString("rpcpassword", ""); pw != "" {
		return c.set.getString("rpcuser", "") + ":" + pw, false
	}
	path := c.cookiePath()
	f, err := os.Open(path)
	if err != nil {
		return "", true
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	if err != nil && line == "" {
		return "", true
	}
	return strings.TrimRight(line, "\r\n"), false
}

// netDir returns the network's folder under the data directory.
func (c *cli) netDir() string {
	return filepath.Join(c.dataDir, c.net.folder)
}

// cookiePath returns the cookie file: -rpccookiefile, relative to the
// network's folder unless absolute, or .cookie there.
func (c *cli) cookiePath() string {
	p := expandHome(c.set.getString("rpccookiefile", cookieFileName))
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.netDir(), p)
	}
	return p
}

// call sends one JSON-RPC request and returns the decoded reply.
func (c *cli) call(method string, params json.RawMessage) (value, error) {
	body := []byte(`{"method":`)
	body = append(body, jsonString(method)...)
	body = append(body, `,"params":`...)
	body = append(body, params...)
	body = append(body, `,"id":1,"jsonrpc":"2.0"}`...)
	return c.callRaw(body)
}

// callRaw posts one request body (an object or a batch) and returns the
// decoded reply.
func (c *cli) callRaw(body []byte) (value, error) {
	host, port, path := c.endpoint()
	auth, noCookie := c.credentials()
	body = append(body, '\n')

	hostPort := net.JoinHostPort(host, strconv.Itoa(port))
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost,
		"http://"+hostPort+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	// Keep the path exactly as encoded.
	req.URL.RawPath = path
	req.Close = true
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(auth)))

	timeout := c.set.getInt("rpcclienttimeout", defaultClientTimeout)
	// No proxy from the environment and no redirects: the request goes
	// to the address given and its reply is read as it is.
	client := &http.Client{
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	if timeout > 0 {
		client.Timeout = time.Duration(timeout) * time.Second
	}
	resp, err := client.Do(req)
	var data []byte
	if err == nil {
		data, err = io.ReadAll(io.LimitReader(resp.Body, maxReplySize+1))
		resp.Body.Close()
		if err == nil && len(data) > maxReplySize {
			err = errors.New("response body is larger than allowed")
		}
	}
	if err != nil {
		return nil, &connError{fmt.Sprintf("Could not connect to the server %s:%d%s\n\n"+
			"Make sure the descwalletd server is running and that you are connecting to the correct RPC port.\n"+
			"Use \"descwallet-cli -help\" for more info.", host, port, transportDetail(err))}
	}

	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		if noCookie {
			return nil, fmt.Errorf("Could not locate RPC credentials. No authentication cookie could be found, and RPC password is not set.  See -rpcpassword and -stdinrpcpass.  Configuration file: (%s)", c.confPath)
		}
		return nil, errors.New("Authorization failed: Incorrect rpcuser or rpcpassword")
	case resp.StatusCode == http.StatusServiceUnavailable:
		return nil, fmt.Errorf("Server response: %s", data)
	case resp.StatusCode >= 400 && resp.StatusCode != http.StatusBadRequest &&
		resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusInternalServerError:
		return nil, fmt.Errorf("server returned HTTP error %d", resp.StatusCode)
	case len(data) == 0:
		return nil, errors.New("no response from server")
	}
	reply, err := decodeValue(data)
	if err != nil {
		return nil, errors.New("couldn't parse reply from server")
	}
	if o, ok := reply.(*object); ok && len(o.keys) == 0 {
		return nil, errors.New("expected reply to have result, error and id properties")
	}
	return reply, nil
}

// transportDetail describes why a request got no reply, as bitcoin-cli
// appends it to the connection error: nothing when the connection was
// refused, the timeout or the early end of the stream otherwise.
func transportDetail(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ` (error code 0 - "timeout reached")`
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return ""
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ` (error code 1 - "EOF reached")`
	}
	return ""
}
