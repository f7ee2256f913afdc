package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// optionSpec describes one option the client knows.
type optionSpec struct {
	// networkOnly options in a configuration file's top section apply to
	// mainnet only; other networks read them from their own section.
	networkOnly bool

	// help is the line shown by -help; empty hides the option.
	arg, help string
}

// knownOptions are the command-line options of descwallet-cli, by name
// without the leading dash.
var knownOptions = map[string]optionSpec{
	"?":                     {help: "Print this help message and exit"},
	"h":                     {},
	"help":                  {},
	"version":               {help: "Print version and exit"},
	"conf":                  {arg: "<file>", help: "Configuration file, relative to the data directory unless absolute (default: descwallet.conf)"},
	"datadir":               {arg: "<dir>", help: "Data directory (default: ~/.descwallet)"},
	"chain":                 {arg: "<chain>", help: "Network: main, test, testnet4, signet, regtest"},
	"regtest":               {help: "Use the regression test network (same as -chain=regtest)"},
	"testnet":               {help: "Use testnet3 (same as -chain=test)"},
	"testnet4":              {help: "Use testnet4 (same as -chain=testnet4)"},
	"signet":                {help: "Use signet (same as -chain=signet)"},
	"named":                 {help: "Pass arguments as name=value instead of by position"},
	"getinfo":               {help: "Print a summary of the node's chain and wallet state (several calls, not one consistent snapshot)"},
	"color":                 {arg: "<when>", help: "Colour the -getinfo summary: always, auto (when writing to a terminal) or never (default: auto)"},
	"generate":              {help: "Mine blocks to a new address of the wallet: getnewaddress, then generatetoaddress (which a bitcoind chain backend answers). Optional positional arguments: the number of blocks (default: 1) and the maximum tries, as generatetoaddress's nblocks and maxtries. Example: descwallet-cli -generate 4 1000"},
	"rpcclienttimeout":      {arg: "<n>", help: "Seconds to wait for a reply, 0 for no limit (default: 900)"},
	"rpcconnect":            {arg: "<ip>", help: "Node address, optionally with :port (default: 127.0.0.1)"},
	"rpccookiefile":         {arg: "<loc>", help: "Cookie file, relative to the network's data directory unless absolute (default: .cookie there)"},
	"rpcpassword":           {arg: "<pw>", help: "Password for JSON-RPC connections"},
	"rpcport":               {arg: "<port>", networkOnly: true, help: "JSON-RPC port (default: 8336, testnet: 18336, testnet4: 48336, signet: 38336, regtest: 18446)"},
	"rpcuser":               {arg: "<user>", help: "Username for JSON-RPC connections"},
	"rpcwait":               {help: "Wait for the RPC server to start"},
	"rpcwaittimeout":        {arg: "<n>", help: "Seconds to wait for the RPC server with -rpcwait, 0 for no limit (default: 0)"},
	"rpcwallet":             {arg: "<walletname>", help: "Send the call to this wallet's endpoint, /wallet/<walletname>"},
	"stdin":                 {help: "Read further arguments from standard input, one per line until end of file"},
	"stdinrpcpass":          {help: "Read the RPC password from the first line of standard input"},
	"stdinwalletpassphrase": {help: "Read the wallet passphrase for walletpassphrase(change) from standard input"},
}

// network is one chain the client can talk to.
type network struct {
	name   string // the -chain value
	folder string // folder under the data directory; "" for mainnet
	port   int    // default RPC port
}

// networks lists the chains by -chain name. The ports are descwalletd's,
// chosen so as not to collide with bitcoind's or btcd's.
var networks = map[string]network{
	"main":     {"main", "", 8336},
	"test":     {"test", "testnet3", 18336},
	"testnet4": {"testnet4", "testnet4", 48336},
	"signet":   {"signet", "signet", 38336},
	"regtest":  {"regtest", "regtest", 18446},
}

// settings holds the options from the command line and the configuration
// file and answers lookups the way bitcoin-cli does: the command line first
// (its last value), then the network's section of the file, then the file's
// top section (its first value), where network-only options count for
// mainnet only.
type settings struct {
	cmdline map[string][]string
	conf    map[string]map[string][]string // section ("" = top) -> name -> values
	net     string
}

// newSettings returns empty settings.
func newSettings() *settings {
	return &settings{
		cmdline: map[string][]string{},
		conf:    map[string]map[string][]string{},
	}
}

// parseCommandLine reads the leading options of args (those starting with
// '-') and returns the remaining arguments: the method and its parameters.
func (s *settings) parseCommandLine(args []string) ([]string, error) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if len(a) == 0 || a[0] != '-' {
			break
		}
		a = strings.TrimPrefix(a[1:], "-") // -name and --name alike
		name, val, _ := strings.Cut(a, "=")
		name, val = negate(name, val)
		if _, ok := knownOptions[name]; !ok {
			return nil, fmt.Errorf("Invalid parameter %s", args[i])
		}
		s.cmdline[name] = append(s.cmdline[name], val)
	}
	return args[i:], nil
}

// negate turns "noname" into "name" with the opposite boolean value, as
// bitcoin-cli reads -nofoo.
func negate(name, val string) (string, string) {
	if base, ok := strings.CutPrefix(name, "no"); ok {
		if _, known := knownOptions[base]; known {
			if interpretBool(val) {
				return base, "0"
			}
			return base, "1"
		}
	}
	return name, val
}

// interpretBool reads an option value as bitcoin-cli does: no value is
// true, otherwise the leading integer is compared with zero.
func interpretBool(v string) bool {
	if v == "" {
		return true
	}
	return atoi(v) != 0
}

// atoi reads a leading decimal integer the way C's atoi does, 0 if none.
func atoi(v string) int64 {
	v = strings.TrimLeft(v, " \t\n\r\f\v")
	neg := false
	if v != "" && (v[0] == '+' || v[0] == '-') {
		neg = v[0] == '-'
		v = v[1:]
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
		if n > 1<<40 {
			break
		}
	}
	if neg {
		n = -n
	}
	return n
}

// readConfigFile loads name=value lines from path. Sections ([regtest]) and
// section-prefixed names (regtest.rpcport=) scope options to a network;
// '#' starts a comment. Unknown names are kept but never read, since the
// file is shared with descwalletd.
func (s *settings) readConfigFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	section := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = strings.TrimSpace(line[1 : len(line)-1])
			continue
		}
		if strings.HasPrefix(line, "-") {
			return fmt.Errorf("parse error on line %d: %s, options in configuration file must be specified without leading -", lineNo, line)
		}
		name, val, ok := strings.Cut(line, "=")
		if !ok {
			return fmt.Errorf("parse error on line %d: %s", lineNo, line)
		}
		name = strings.TrimSpace(name)
		val = strings.TrimSpace(val)
		sec := section
		if pre, rest, ok := strings.Cut(name, "."); ok {
			sec, name = pre, rest
		}
		name, val = negate(name, val)
		if s.conf[sec] == nil {
			s.conf[sec] = map[string][]string{}
		}
		s.conf[sec][name] = append(s.conf[sec][name], val)
	}
	return sc.Err()
}

// get returns an option's value and whether it is set.
func (s *settings) get(name string) (string, bool) {
	if v := s.cmdline[name]; len(v) > 0 {
		return v[len(v)-1], true
	}
	if s.net != "" {
		if v := s.conf[s.net][name]; len(v) > 0 {
			return v[0], true
		}
	}
	if knownOptions[name].networkOnly && s.net != "main" {
		return "", false
	}
	if v := s.conf[""][name]; len(v) > 0 {
		return v[0], true
	}
	return "", false
}

// getString returns an option's value or def.
func (s *settings) getString(name, def string) string {
	if v, ok := s.get(name); ok {
		return v
	}
	return def
}

// getBool returns an option's boolean value or def.
func (s *settings) getBool(name string, def bool) bool {
	if v, ok := s.get(name); ok {
		return interpretBool(v)
	}
	return def
}

// getInt returns an option's integer value or def.
func (s *settings) getInt(name string, def int64) int64 {
	if v, ok := s.get(name); ok {
		return atoi(v)
	}
	return def
}

// isSet reports whether an option is given anywhere.
func (s *settings) isSet(name string) bool {
	_, ok := s.get(name)
	return ok
}

// chainFlagOrder lists the network switches in the order the conflict
// message names them.
var chainFlagOrder = []struct{ flag, chain string }{
	{"regtest", "regtest"},
	{"signet", "signet"},
	{"testnet", "test"},
	{"testnet4", "testnet4"},
}

// selectNetwork resolves the network from the command line and the
// configuration file's top section: at most one of -regtest, -signet,
// -testnet, -testnet4 and -chain may be given; none means mainnet.
func (s *settings) selectNetwork() (network, error) {
	var chosen []string
	lookup := func(name string) (string, bool) {
		if v := s.cmdline[name]; len(v) > 0 {
			return v[len(v)-1], true
		}
		if v := s.conf[""][name]; len(v) > 0 {
			return v[0], true
		}
		return "", false
	}
	for _, f := range chainFlagOrder {
		if v, ok := lookup(f.flag); ok && interpretBool(v) {
			chosen = append(chosen, f.chain)
		}
	}
	if v, ok := lookup("chain"); ok {
		chosen = append(chosen, v)
	}
	if len(chosen) > 1 {
		return network{}, fmt.Errorf("Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one.")
	}
	name := "main"
	if len(chosen) == 1 {
		name = chosen[0]
	}
	n, ok := networks[name]
	if !ok {
		return network{}, fmt.Errorf("Unknown chain %s.", name)
	}
	s.net = n.name
	return n, nil
}

// defaultDataDir returns ~/.descwallet.
func defaultDataDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ".descwallet"
	}
	return filepath.Join(home, ".descwallet")
}

// expandHome replaces a leading "~/" with the home directory.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}
