package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// The -getinfo batch, by request id.
const (
	infoNetwork = iota
	infoBlockchain
	infoWallet
	infoBalances
	infoCount
)

// rpcMethodNotFound is the code of an unknown method.
const rpcMethodNotFound = -32601

// getinfoMethods are the calls -getinfo batches, indexed by request id.
var getinfoMethods = [infoCount]string{"getnetworkinfo", "getblockchaininfo", "getwalletinfo", "getbalances"}

// getinfo runs -getinfo: one batch of getnetworkinfo, getblockchaininfo,
// getwalletinfo and getbalances, printed as bitcoin-cli prints it. The node
// has no peer-to-peer side of its own, so when getnetworkinfo is unknown the
// network lines are left out instead of failing.
func (c *cli) getinfo(args []string) (string, int) {
	if len(args) > 0 {
		return "error: -getinfo takes no arguments", 1
	}
	color, err := c.colorize()
	if err != nil {
		return "error: " + err.Error(), 1
	}
	var batch strings.Builder
	batch.WriteByte('[')
	for id, m := range getinfoMethods {
		if id > 0 {
			batch.WriteByte(',')
		}
		fmt.Fprintf(&batch, `{"method":%s,"params":null,"id":%d,"jsonrpc":"2.0"}`, jsonString(m), id)
	}
	batch.WriteByte(']')
	reply, err := c.callRaw([]byte(batch.String()))
	if err != nil {
		return "error: " + err.Error(), 1
	}
	replies, err := batchReplies(reply, infoCount)
	if err != nil {
		return "error: " + err.Error(), 1
	}

	network, netErr := replyParts(replies[infoNetwork])
	if netErr != nil && errorCode(netErr) != rpcMethodNotFound {
		return formatError(netErr)
	}
	chain, chainErr := replyParts(replies[infoBlockchain])
	if chainErr != nil {
		return formatError(chainErr)
	}
	wallet, _ := replyParts(replies[infoWallet])
	balances, _ := replyParts(replies[infoBalances])

	var perWallet *object
	if _, chosen := c.set.get("rpcwallet"); !chosen {
		perWallet = c.walletBalances()
	}
	return formatGetinfo(color, network, chain, wallet, balances, perWallet), 0
}

// colorize reads -color: always, never, or auto (colour when standard
// output is a terminal).
func (c *cli) colorize() (bool, error) {
	switch c.set.getString("color", "auto") {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		f, ok := c.stdout.(*os.File)
		if !ok {
			return false, nil
		}
		fi, err := f.Stat()
		return err == nil && fi.Mode()&os.ModeCharDevice != 0, nil
	}
	return false, errors.New("Invalid value for -color option. Valid values: always, auto, never.")
}

// batchReplies orders a batch reply by request id.
func batchReplies(reply value, n int) ([]*object, error) {
	arr, ok := reply.([]value)
	if !ok {
		return nil, errors.New("Batch must be an array")
	}
	out := make([]*object, n)
	for _, r := range arr {
		obj, ok := r.(*object)
		if !ok {
			return nil, errors.New("Batch member must be an object")
		}
		idv, _ := obj.get("id")
		id, err := strconv.Atoi(valueText(idv))
		if err != nil {
			return nil, errors.New("Batch member id is not an integer")
		}
		if id < 0 || id >= n {
			return nil, errors.New("Batch member id is larger than batch size")
		}
		out[id] = obj
	}
	for _, o := range out {
		if o == nil {
			return nil, errors.New("Batch reply is missing a member")
		}
	}
	return out, nil
}

// replyParts splits one reply into its result object (nil when it is not
// an object) and its error (nil on success).
func replyParts(r *object) (*object, value) {
	if e, _ := r.get("error"); e != nil {
		return nil, e
	}
	res, _ := r.get("result")
	obj, _ := res.(*object)
	return obj, nil
}

// errorCode returns an error object's code, or 0.
func errorCode(e value) int64 {
	if obj, ok := e.(*object); ok {
		if c, ok := obj.get("code"); ok {
			if n, ok := c.(json.Number); ok {
				v, _ := n.Int64()
				return v
			}
		}
	}
	return 0
}

// field returns the text of obj[path...], "" when missing.
func field(obj *object, path ...string) string {
	var v value = obj
	for _, k := range path {
		o, ok := v.(*object)
		if !ok || o == nil {
			return ""
		}
		v, _ = o.get(k)
	}
	if v == nil {
		return ""
	}
	return valueText(v)
}

// has reports whether obj has a non-null member key.
func has(obj *object, key string) bool {
	if obj == nil {
		return false
	}
	v, ok := obj.get(key)
	return ok && v != nil
}

// walletBalances asks every loaded wallet for its trusted balance when more
// than one is loaded, as bitcoin-cli adds them to -getinfo; nil otherwise.
func (c *cli) walletBalances() *object {
	wallets, err := c.simpleCall("listwallets", nil, "")
	if err != nil {
		return nil
	}
	list, ok := wallets.([]value)
	if !ok || len(list) <= 1 {
		return nil
	}
	out := &object{}
	for _, w := range list {
		name, ok := w.(string)
		if !ok {
			continue
		}
		res, err := c.simpleCall("getbalances", nil, name)
		if err != nil {
			continue
		}
		obj, _ := res.(*object)
		var trusted value
		if mine, ok := obj.get("mine"); ok {
			if m, ok := mine.(*object); ok {
				trusted, _ = m.get("trusted")
			}
		}
		out.keys = append(out.keys, name)
		out.vals = append(out.vals, trusted)
	}
	return out
}

// simpleCall calls method on a wallet's endpoint (or the default when
// wallet is "") and returns its result, or an error for any failure.
func (c *cli) simpleCall(method string, params json.RawMessage, wallet string) (value, error) {
	if params == nil {
		params = json.RawMessage("[]")
	}
	saved, had := c.set.cmdline["rpcwallet"]
	if wallet != "" {
		c.set.cmdline["rpcwallet"] = []string{wallet}
	}
	defer func() {
		if had {
			c.set.cmdline["rpcwallet"] = saved
		} else {
			delete(c.set.cmdline, "rpcwallet")
		}
	}()
	reply, err := c.call(method, params)
	if err != nil {
		return nil, err
	}
	obj, ok := reply.(*object)
	if !ok {
		return nil, errors.New("bad reply")
	}
	if e, _ := obj.get("error"); e != nil {
		return nil, errors.New("rpc error")
	}
	res, _ := obj.get("result")
	return res, nil
}

// progressBar draws progress (0 to 1) in 5% steps of filled and empty
// shade characters.
func progressBar(progress float64) string {
	if progress < 0 || progress > 1 {
		return ""
	}
	const step = 0.05
	var b strings.Builder
	for i := 0; float64(i) < progress/step; i++ {
		b.WriteString("\u2592")
	}
	for i := 0; float64(i) < (1-progress)/step; i++ {
		b.WriteString("\u2591")
	}
	return b.String()
}

// formatGetinfo renders the -getinfo report.
func formatGetinfo(color bool, network, chain, wallet, balances, perWallet *object) string {
	var reset, green, blue, yellow, magenta, cyan string
	if color {
		reset, green, blue, yellow = "\x1b[0m", "\x1b[32m", "\x1b[34m", "\x1b[33m"
		magenta, cyan = "\x1b[35m", "\x1b[36m"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%sChain: %s%s\n", blue, field(chain, "chain"), reset)
	fmt.Fprintf(&b, "Blocks: %s\n", field(chain, "blocks"))
	fmt.Fprintf(&b, "Headers: %s\n", field(chain, "headers"))
	progress, _ := strconv.ParseFloat(field(chain, "verificationprogress"), 64)
	bar := ""
	if progress < 0.99 {
		bar = progressBar(progress) + " "
	}
	fmt.Fprintf(&b, "Verification progress: %s%.4f%%\n", bar, progress*100)
	fmt.Fprintf(&b, "Difficulty: %s\n\n", field(chain, "difficulty"))

	warnings := ""
	if network != nil {
		fmt.Fprintf(&b, "%sNetwork: in %s, out %s, total %s%s\n", green,
			field(network, "connections_in"), field(network, "connections_out"),
			field(network, "connections"), reset)
		fmt.Fprintf(&b, "Version: %s\n", field(network, "version"))
		fmt.Fprintf(&b, "Time offset (s): %s\n", field(network, "timeoffset"))
		fmt.Fprintf(&b, "Proxies: %s\n", proxies(network))
		fmt.Fprintf(&b, "Min tx relay fee rate (BTC/kvB): %s\n\n", field(network, "relayfee"))
		warnings = warningsText(network)
	} else {
		warnings = warningsText(chain)
	}

	if wallet != nil {
		name := field(wallet, "walletname")
		if name == "" {
			name = `""`
		}
		fmt.Fprintf(&b, "%sWallet: %s%s\n", magenta, name, reset)
		fmt.Fprintf(&b, "Keypool size: %s\n", field(wallet, "keypoolsize"))
		if has(wallet, "unlocked_until") {
			fmt.Fprintf(&b, "Unlocked until: %s\n", field(wallet, "unlocked_until"))
		}
	}
	if balances != nil {
		if t := field(balances, "mine", "trusted"); t != "" {
			fmt.Fprintf(&b, "%sBalance:%s %s\n\n", cyan, reset, t)
		}
	}
	if perWallet != nil {
		fmt.Fprintf(&b, "%sBalances%s\n", cyan, reset)
		width := 10
		for _, v := range perWallet.vals {
			width = max(width, len(valueText(v)))
		}
		for i, name := range perWallet.keys {
			if name == "" {
				name = `""`
			}
			fmt.Fprintf(&b, "%*s %s\n", width, valueText(perWallet.vals[i]), name)
		}
		b.WriteString("\n")
	}
	if warnings == "" {
		warnings = "(none)"
	}
	fmt.Fprintf(&b, "%sWarnings:%s %s", yellow, reset, warnings)
	return b.String()
}

// proxies lists the proxies getnetworkinfo reports, each with its networks.
func proxies(network *object) string {
	nets, _ := network.get("networks")
	list, _ := nets.([]value)
	var order []string
	byProxy := map[string][]string{}
	for _, n := range list {
		o, ok := n.(*object)
		if !ok {
			continue
		}
		p := field(o, "proxy")
		if p == "" {
			continue
		}
		if _, seen := byProxy[p]; !seen {
			order = append(order, p)
		}
		byProxy[p] = append(byProxy[p], field(o, "name"))
	}
	if len(order) == 0 {
		return "n/a"
	}
	parts := make([]string, len(order))
	for i, p := range order {
		parts[i] = fmt.Sprintf("%s (%s)", p, strings.Join(byProxy[p], ", "))
	}
	return strings.Join(parts, ", ")
}

// warningsText returns the warnings member as one string: a string as it
// is, an array of strings joined by newlines.
func warningsText(obj *object) string {
	if obj == nil {
		return ""
	}
	w, _ := obj.get("warnings")
	switch t := w.(type) {
	case string:
		return t
	case []value:
		parts := make([]string, 0, len(t))
		for _, e := range t {
			parts = append(parts, valueText(e))
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
