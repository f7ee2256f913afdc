package acctest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/btcutil/v2"
	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/pgtest"
	"github.com/descwallet/descwallet/internal/testenv"
)

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	testenv.CleanupBuilds()
	os.Exit(code)
}

// Step counts and seeds: CI runs defaultSteps on SQLite and pgSteps on
// PostgreSQL, both from defaultSeed; ACCT_STEPS and ACCT_SEED (a number,
// or "random") change them for both (make soak).
const (
	defaultSteps = 300
	pgSteps      = 100
	sharedSteps  = 60
	defaultSeed  = 11
)

// checkTimeout bounds the wait for the wallet to agree with the model after
// a step (it follows the chain by polling).
const checkTimeout = 30 * time.Second

// slot is one watched-or-not script: a test key paid in one way, or one
// index of a ranged descriptor.
type slot struct {
	kind string // pkh, sh-wpkh, wpkh, tr
	key  *testenv.Key
	wif  string
	out  testenv.Output
	desc string
	// priv is desc with the private key: what the wallet imports.
	priv     string
	change   bool
	imported bool
	// ranged tells that desc is a ranged descriptor with other slots:
	// imported once, at setup.
	ranged bool
}

// rangedSlots derives the first n indexes of an active ranged
// descriptor over branch of master: wpkh() for receiving, tr() for change.
func rangedSlots(t *testing.T, master *hdkeychain.ExtendedKey, branch uint32, n int) []*slot {
	t.Helper()
	pub, err := master.Neuter()
	if err != nil {
		t.Fatal(err)
	}
	br, err := master.Derive(branch)
	if err != nil {
		t.Fatal(err)
	}
	change := branch == 1
	desc := fmt.Sprintf("wpkh(%s/%d/*)", pub, branch)
	privDesc := fmt.Sprintf("wpkh(%s/%d/*)", master, branch)
	if change {
		desc = fmt.Sprintf("tr(%s/%d/*)", pub, branch)
		privDesc = fmt.Sprintf("tr(%s/%d/*)", master, branch)
	}
	desc, privDesc = descriptor.AddChecksum(desc), descriptor.AddChecksum(privDesc)
	net := &chaincfg.RegressionNetParams
	var out []*slot
	for i := 0; i < n; i++ {
		child, err := br.Derive(uint32(i))
		if err != nil {
			t.Fatal(err)
		}
		priv, err := child.ECPrivKey()
		if err != nil {
			t.Fatal(err)
		}
		wif, err := btcutil.NewWIF(priv, net, true)
		if err != nil {
			t.Fatal(err)
		}
		var a address.Address
		if change {
			a, err = address.NewAddressTaproot(schnorr.SerializePubKey(
				txscript.ComputeTaprootKeyNoScript(priv.PubKey())), net)
		} else {
			a, err = address.NewAddressWitnessPubKeyHash(address.Hash160(priv.PubKey().SerializeCompressed()), net)
		}
		if err != nil {
			t.Fatal(err)
		}
		script, err := txscript.PayToAddrScript(a)
		if err != nil {
			t.Fatal(err)
		}
		kind := "wpkh"
		if change {
			kind = "tr"
		}
		out = append(out, &slot{kind: kind, wif: wif.String(), desc: desc, priv: privDesc, change: change, ranged: true,
			out: testenv.Output{Address: a.EncodeAddress(), Script: script, ScriptHex: hex.EncodeToString(script)}})
	}
	return out
}

// foreignCoin is an output paying a stranger.
type foreignCoin struct {
	txid  string
	vout  uint32
	value int64
	out   testenv.Output
	key   *testenv.Key
}

// harness drives a node and its wallet through chain events.
type harness struct {
	t      *testing.T
	seed   int64
	rng    *rand.Rand
	step   int
	what   string
	n1, n2 *testenv.Btcd
	d      *testenv.Daemon
	wallet *testenv.Client
	// walletDB is -walletdb (SQLite when empty); noRelay starts the
	// daemon with -walletbroadcast=0.
	walletDB string
	noRelay  bool
	// shared runs two daemons on the wallet's PostgreSQL database
	// (-walletdbshared): nodes are both, cur the one the step talks to
	// (its calls, its stops); every check asks both. d and wallet are
	// the current node's.
	shared bool
	nodes  []*node
	cur    int

	slots []*slot
	// more are the indexes of the ranged descriptors past the slots the
	// test pays itself: the wallet's own change and new addresses.
	more      []*slot
	strangers []testenv.Output
	// strangerKeys holds the keys of the strangers' scripts, foreign the
	// strangers' coins the faucet paid and no spend used yet: a spend
	// now and then takes one as an input that is not the wallet's.
	strangerKeys map[string]*testenv.Key
	foreign      []foreignCoin
	names        map[string]string

	chain  []chainhash.Hash // best chain by height, as last read
	blocks map[chainhash.Hash]*wire.MsgBlock
	// outside is a transaction that is not the wallet's.
	outside string
	txCache map[chainhash.Hash]*wire.MsgTx
	// last is the view of the last check, which the wallet agreed with.
	last *View
	// counts is how many steps of each kind ran.
	counts map[string]int

	// sent are the transactions the wallet's sending calls made, by the
	// txid they returned (the model's only link to them).
	sent []string
	// replacements are the transactions bumpfee made; abandoned those
	// abandontransaction abandoned.
	replacements map[chainhash.Hash]bool
	abandoned    map[chainhash.Hash]bool
	// handed are transactions the wallet made that btcd never saw
	// (-walletbroadcast=0), read once from gettransaction by their txid.
	handed map[chainhash.Hash]*wire.MsgTx
	// lastChain is the chain of the last check.
	lastChain *Chain
	byAddr    map[string]*slot
}

// TestAccountingModel runs a seeded random sequence of chain events against
// btcd and checks after each one that getbalances, listunspent,
// listtransactions, gettransaction and getwalletinfo's txcount equal what
// the model computes from btcd's blocks and mempool.
func TestAccountingModel(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts two btcd and the daemon")
	}
	t.Parallel()
	runModel(t, "", false, defaultSteps)
}

// TestAccountingModelPostgres is TestAccountingModel with the wallet in
// PostgreSQL (-walletdb), on btcd nodes of its own, in parallel with it.
func TestAccountingModelPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts two btcd, PostgreSQL and the daemon")
	}
	t.Parallel()
	runModel(t, pgtest.DSN(t), false, pgSteps)
}

// TestAccountingModelShared runs the sequence on two daemons serving the
// wallet from one PostgreSQL database (-walletdbshared): each step talks
// to one of them at random (its calls, and its stops and kills, the other
// taking over the chain when it led), and after each both must agree with
// the model, the one that does not follow the chain as well as the leader.
func TestAccountingModelShared(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts two btcd, PostgreSQL and two daemons")
	}
	t.Parallel()
	runModel(t, pgtest.DSN(t), true, sharedSteps)
}

// runModel runs the test with the wallets in the store walletDB names
// (-walletdb; SQLite when empty), steps steps unless ACCT_STEPS says.
func runModel(t *testing.T, walletDB string, shared bool, steps int) {
	if v := os.Getenv("ACCT_STEPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("ACCT_STEPS=%q", v)
		}
		steps = n
	}
	seed := int64(defaultSeed)
	switch v := os.Getenv("ACCT_SEED"); v {
	case "":
	case "random":
		seed = time.Now().UnixNano()
	default:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("ACCT_SEED=%q", v)
		}
		seed = n
	}
	t.Logf("seed %d, %d steps (rerun with ACCT_SEED=%d ACCT_STEPS=%d)", seed, steps, seed, steps)
	h := newHarness(t, seed, steps)
	h.walletDB, h.shared = walletDB, shared
	h.nodes = []*node{{dir: t.TempDir()}}
	h.setup()
	for h.step = 1; h.step <= steps; h.step++ {
		h.randomStep()
	}
	t.Logf("seed %d: %d steps, %d wallet transactions, chain height %d; steps run: %v", seed, steps,
		len(h.last.Txs), h.n1.GetBlockCount(), h.counts)
}

func newHarness(t *testing.T, seed int64, steps int) *harness {
	h := &harness{t: t, seed: seed, rng: rand.New(rand.NewSource(seed)),
		names: map[string]string{}, strangerKeys: map[string]*testenv.Key{}, counts: map[string]int{}, blocks: map[chainhash.Hash]*wire.MsgBlock{},
		txCache: map[chainhash.Hash]*wire.MsgTx{}, replacements: map[chainhash.Hash]bool{},
		abandoned: map[chainhash.Hash]bool{}, handed: map[chainhash.Hash]*wire.MsgTx{}}
	for k := 0; k < 4; k++ {
		key := testenv.NewKey(fmt.Sprintf("acctest wallet key %d", k))
		for _, s := range []*slot{
			{kind: "pkh", out: key.PKH, desc: "pkh(" + key.PubKeyHex + ")"},
			{kind: "sh-wpkh", out: key.SHWPKH, desc: "sh(wpkh(" + key.PubKeyHex + "))"},
			{kind: "wpkh", out: key.WPKH, desc: "wpkh(" + key.PubKeyHex + ")"},
			{kind: "tr", out: key.TR, desc: "tr(" + key.PubKeyHex + ")"},
		} {
			// The last key's scripts are imported as internal: change.
			s.key, s.wif, s.change = key, key.WIF, k == 3
			s.priv = descriptor.AddChecksum(strings.Replace(s.desc, key.PubKeyHex, key.WIF, 1))
			s.desc = descriptor.AddChecksum(s.desc)
			h.slots = append(h.slots, s)
			h.names[string(s.out.Script)] = s.out.Address
		}
	}
	// An active ranged descriptor for receiving and one for change, of
	// which the test pays the first indexes.
	hdSeed := sha256.Sum256([]byte("acctest ranged seed"))
	master, err := hdkeychain.NewMaster(hdSeed[:], &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	// The wallet's sends take a new change index at most and a send to
	// itself a new address: the model watches enough indexes past the
	// slots for every step to take two.
	for branch := uint32(0); branch < 2; branch++ {
		for i, s := range rangedSlots(t, master, branch, 12+40+2*steps) {
			if i < 12 {
				h.slots = append(h.slots, s)
			} else {
				h.more = append(h.more, s)
			}
			h.names[string(s.out.Script)] = s.out.Address
		}
	}
	for i := 0; i < 2; i++ {
		k := testenv.NewKey(fmt.Sprintf("acctest stranger %d", i))
		for _, o := range []testenv.Output{k.WPKH, k.TR} {
			h.strangers = append(h.strangers, o)
			h.strangerKeys[string(o.Script)] = k
			h.names[string(o.Script)] = o.Address
		}
	}
	m := testenv.MinerKey()
	h.names[string(m.WPKH.Script)] = m.WPKH.Address
	return h
}

// fail stops the test, naming the seed and step.
func (h *harness) fail(format string, args ...any) {
	h.t.Helper()
	what := h.what
	if h.shared {
		what += fmt.Sprintf(", talking to node %d", h.cur)
	}
	h.t.Fatalf("seed %d step %d (%s): %s", h.seed, h.step, what, fmt.Sprintf(format, args...))
}

func (h *harness) setup() {
	h.what = "setup"
	h.n1 = testenv.StartBtcd(h.t, nil)
	h.n2 = testenv.StartBtcd(h.t, nil)
	// The first Fund matures a stock of coinbases.
	h.n1.Fund(wire.NewTxOut(100_000, h.strangers[0].Script))
	h.n1.Generate(1)
	h.outside = h.n1.Block(h.n1.BlockHash(1)).Transactions[0].TxHash().String()
	h.startDaemon(false)
	// A blank wallet with private keys: the test imports every key.
	var cw json.RawMessage
	if err := h.d.CallResult(&cw, "createwallet", "w", false, true); err != nil {
		h.fail("createwallet: %v", err)
	}
	if h.shared {
		// The second node serves the same wallet from the database.
		h.nodes = append(h.nodes, &node{dir: h.t.TempDir()})
		h.use(1)
		h.startDaemon(true)
		h.use(0)
	}
	for _, s := range h.slots {
		if !s.imported && (s.kind == "wpkh" || s.change) {
			h.importSlot(s)
		}
	}
	h.check()
}

func (h *harness) startDaemon(withWallet bool) {
	h.t.Helper()
	args := []string{"-chainbackend=btcd", "-chainrpcconnect=" + h.n1.RPCAddr,
		"-chainrpcuser=" + h.n1.User, "-chainrpcpassword=" + h.n1.Pass, "-chainpoll=50"}
	if withWallet {
		args = append(args, "-wallet=w")
	}
	if h.walletDB != "" {
		args = append(args, "-walletdb="+h.walletDB)
		if h.shared {
			args = append(args, "-walletdbshared")
		}
	}
	if h.noRelay {
		args = append(args, "-walletbroadcast=0")
	}
	n := h.nodes[h.cur]
	n.d = testenv.StartDaemon(h.t, &testenv.DaemonOptions{DataDir: n.dir, Args: args})
	n.wallet = &testenv.Client{URL: n.d.URL + "wallet/w", User: "u", Pass: "p"}
	h.d, h.wallet = n.d, n.wallet
}

// node is one daemon serving the wallet.
type node struct {
	d      *testenv.Daemon
	wallet *testenv.Client
	dir    string
}

// use makes node i the one the next calls, stops and starts go to.
func (h *harness) use(i int) {
	h.cur = i
	h.d, h.wallet = h.nodes[i].d, h.nodes[i].wallet
}

func (h *harness) importSlot(s *slot) {
	h.t.Helper()
	var res []struct {
		Success bool            `json:"success"`
		Error   json.RawMessage `json:"error"`
	}
	req := []map[string]any{{"desc": s.priv, "timestamp": 0}}
	if s.change {
		req[0]["internal"] = true
	}
	if s.ranged {
		req[0]["active"], req[0]["range"] = true, []int{0, 20}
	}
	if err := h.wallet.CallResult(&res, "importdescriptors", req); err != nil {
		h.fail("importdescriptors %s: %v", s.desc, err)
	}
	if len(res) != 1 || !res[0].Success {
		h.fail("importdescriptors %s: %+v", s.desc, res)
	}
	for _, o := range append(append([]*slot{}, h.slots...), h.more...) {
		if o.desc == s.desc {
			o.imported = true
		}
	}
}

// randomStep runs one event chosen by weight, then checks.
func (h *harness) randomStep() {
	type action struct {
		weight int
		name   string
		run    func() bool
	}
	actions := []action{
		{24, "receive", h.receive},
		{18, "mine", h.mine},
		{16, "spend to outside", func() bool { return h.spend(false) }},
		{10, "spend to self", func() bool { return h.spend(true) }},
		{5, "mined while the daemon is stopped", h.minedWhileStopped},
		{5, "reorg", h.reorg},
		{5, "daemon restart", h.restart},
		{4, "rescanblockchain", h.rescan},
		{5, "import with history", h.importWithHistory},
		{10, "sendtoaddress", h.sendToAddress},
		{6, "sendmany", h.sendMany},
		{5, "bumpfee", h.bumpFee},
		{3, "lockunspent, then sendtoaddress", h.lockAndSend},
		{2, "payment never relayed", h.abandonUnrelayed},
	}
	total := 0
	for _, a := range actions {
		total += a.weight
	}
	if h.shared {
		h.use(h.rng.Intn(len(h.nodes)))
	}
	for {
		r := h.rng.Intn(total)
		for _, a := range actions {
			if r -= a.weight; r < 0 {
				h.what = a.name
				if a.run() {
					h.counts[a.name]++
					h.check()
					return
				}
				break
			}
		}
	}
}

// receive pays one to three scripts, watched or not yet, and now and then
// a stranger, from the faucet: the wallet first sees the payment in the
// mempool.
func (h *harness) receive() bool {
	n := 1 + h.rng.Intn(3)
	var outs []*wire.TxOut
	for i := 0; i < n; i++ {
		s := h.slots[h.rng.Intn(len(h.slots))]
		outs = append(outs, wire.NewTxOut(20_000+h.rng.Int63n(5_000_000), s.out.Script))
	}
	stranger := -1
	if h.rng.Intn(3) == 0 {
		o := h.strangers[h.rng.Intn(len(h.strangers))]
		stranger = len(outs)
		outs = append(outs, wire.NewTxOut(50_000+h.rng.Int63n(1_000_000), o.Script))
	}
	txid := h.n1.Fund(outs...)
	if stranger >= 0 {
		o := outs[stranger]
		h.foreign = append(h.foreign, foreignCoin{txid: txid, vout: uint32(stranger), value: o.Value,
			out: testenv.Output{ScriptHex: hex.EncodeToString(o.PkScript)}, key: h.strangerKeys[string(o.PkScript)]})
	}
	return true
}

func (h *harness) mine() bool {
	h.n1.Generate(1 + h.rng.Intn(2))
	return true
}

// spend builds, signs (with the daemon's signrawtransactionwithkey and the
// keys the test holds) and broadcasts a spend of one to three wallet coins,
// to the wallet's own scripts or to outside ones (strangers and scripts
// not watched yet) with change back. It returns false when the wallet has
// no coin.
func (h *harness) spend(toSelf bool) bool {
	hexTx, ok := h.buildSpend(toSelf)
	if !ok {
		return false
	}
	if _, err := h.n1.SendRawTransaction(hexTx); err != nil {
		h.fail("btcd refused the spend: %v", err)
	}
	return true
}

func (h *harness) buildSpend(toSelf bool) (string, bool) {
	var coins []Unspent
	for _, u := range h.last.Unspent {
		// Coins of unconfirmed transactions now and then: chains of
		// mempool transactions.
		if u.Confirmations > 0 || h.rng.Intn(3) == 0 {
			coins = append(coins, u)
		}
	}
	if len(coins) == 0 {
		return "", false
	}
	h.rng.Shuffle(len(coins), func(i, j int) { coins[i], coins[j] = coins[j], coins[i] })
	coins = coins[:1+h.rng.Intn(min(3, len(coins)))]
	var in int64
	tx := wire.NewMsgTx(2)
	type prev struct {
		TxID         string      `json:"txid"`
		Vout         uint32      `json:"vout"`
		ScriptPubKey string      `json:"scriptPubKey"`
		RedeemScript string      `json:"redeemScript,omitempty"`
		Amount       json.Number `json:"amount"`
	}
	var prevs []prev
	wifs := map[string]bool{}
	for _, c := range coins {
		id, err := chainhash.NewHashFromStr(c.TxID)
		if err != nil {
			h.fail("%v", err)
		}
		tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(id, c.Vout), nil, nil))
		s := h.slotOf(c.Address)
		p := prev{TxID: c.TxID, Vout: c.Vout, ScriptPubKey: s.out.ScriptHex, Amount: btc(c.Amount)}
		if s.kind == "sh-wpkh" {
			p.RedeemScript = s.key.WPKH.ScriptHex
		}
		prevs = append(prevs, p)
		wifs[s.wif] = true
		in += c.Amount
	}
	if len(h.foreign) > 0 && h.rng.Intn(4) == 0 {
		// An input that is not the wallet's: the spend is the
		// wallet's but not trusted, and its fee is Core's odd debit
		// less outputs.
		i := h.rng.Intn(len(h.foreign))
		f := h.foreign[i]
		h.foreign = append(h.foreign[:i], h.foreign[i+1:]...)
		id, err := chainhash.NewHashFromStr(f.txid)
		if err != nil {
			h.fail("%v", err)
		}
		tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(id, f.vout), nil, nil))
		prevs = append(prevs, prev{TxID: f.txid, Vout: f.vout, ScriptPubKey: f.out.ScriptHex, Amount: btc(f.value)})
		wifs[f.key.WIF] = true
		in += f.value
		h.counts["(a stranger's input in a spend)"]++
	}
	avail := in - 2_000*int64(len(tx.TxIn)+1)
	if avail < 30_000 {
		return "", false
	}
	var dests [][]byte
	if toSelf {
		for i := 0; i < 1+h.rng.Intn(2); i++ {
			dests = append(dests, h.importedSlot().out.Script)
		}
	} else {
		var out []byte
		if h.rng.Intn(3) == 0 {
			if s := h.pendingSlot(); s != nil {
				out = s.out.Script
			}
		}
		if out == nil {
			out = h.strangers[h.rng.Intn(len(h.strangers))].Script
		}
		dests = append(dests, out)
		if h.rng.Intn(2) == 0 {
			dests = append(dests, h.importedSlot().out.Script) // change, or not
		}
	}
	left := avail
	for i, d := range dests {
		v := left
		if i < len(dests)-1 {
			v = 10_000 + h.rng.Int63n(left/2-10_000)
		}
		left -= v
		tx.AddTxOut(wire.NewTxOut(v, d))
	}
	var keys []string
	for k := range wifs {
		keys = append(keys, k)
	}
	var sr struct {
		Hex      string          `json:"hex"`
		Complete bool            `json:"complete"`
		Errors   json.RawMessage `json:"errors"`
	}
	if err := h.d.CallResult(&sr, "signrawtransactionwithkey", testenv.TxHex(h.t, tx), keys, prevs); err != nil {
		h.fail("signrawtransactionwithkey: %v", err)
	}
	if !sr.Complete {
		h.fail("signrawtransactionwithkey incomplete: %s", sr.Errors)
	}
	return sr.Hex, true
}

func (h *harness) slotOf(addr string) *slot {
	if h.byAddr == nil {
		h.byAddr = map[string]*slot{}
		for _, s := range append(append([]*slot{}, h.slots...), h.more...) {
			h.byAddr[s.out.Address] = s
		}
	}
	if s := h.byAddr[addr]; s != nil {
		return s
	}
	h.fail("no key for %s", addr)
	return nil
}

func (h *harness) importedSlot() *slot {
	var in []*slot
	for _, s := range h.slots {
		if s.imported {
			in = append(in, s)
		}
	}
	return in[h.rng.Intn(len(in))]
}

func (h *harness) pendingSlot() *slot {
	var out []*slot
	for _, s := range h.slots {
		if !s.imported {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out[h.rng.Intn(len(out))]
}

// minedWhileStopped stops the daemon, pays the wallet, spends from it
// (signed before the stop) and mines, then starts the daemon again.
func (h *harness) minedWhileStopped() bool {
	spend, haveSpend := h.buildSpend(h.rng.Intn(2) == 0)
	if err := h.d.Stop(); err != nil {
		h.fail("stop: %v", err)
	}
	h.receive()
	if haveSpend {
		if _, err := h.n1.SendRawTransaction(spend); err != nil {
			h.fail("btcd refused the spend: %v", err)
		}
	}
	h.n1.Generate(1 + h.rng.Intn(2))
	h.startDaemon(true)
	return true
}

// reorg replaces the last one to three blocks of the wallet's node with a
// longer branch mined by the second node, after checking the wallet saw the
// blocks about to be dropped (which carry its mempool transactions, and
// maybe a new payment). The nodes exchange blocks with submitblock, never
// over P2P, so that the second one mines an empty branch.
func (h *harness) reorg() bool {
	copyBlocks(h, h.n1, h.n2)
	if h.rng.Intn(2) == 0 {
		h.receive()
	}
	k := 1 + h.rng.Intn(3)
	h.n1.Generate(k)
	h.what = fmt.Sprintf("reorg of %d blocks: before", k)
	h.check()
	h.n2.Generate(k + 1)
	copyBlocks(h, h.n2, h.n1)
	if a, b := h.n1.BestBlockHash(), h.n2.BestBlockHash(); a != b {
		h.fail("no reorg: tips %s and %s", a, b)
	}
	h.what = fmt.Sprintf("reorg of %d blocks", k)
	return true
}

// copyBlocks submits to dst the blocks of src's best chain above their
// last common block.
func copyBlocks(h *harness, src, dst *testenv.Btcd) {
	h.t.Helper()
	top := src.GetBlockCount()
	fork := min(top, dst.GetBlockCount())
	for ; fork > 0 && src.BlockHash(fork) != dst.BlockHash(fork); fork-- {
	}
	for height := fork + 1; height <= top; height++ {
		var raw string
		if err := src.CallResult(&raw, "getblock", src.BlockHash(height), 0); err != nil {
			h.fail("getblock: %v", err)
		}
		var res json.RawMessage
		if err := dst.CallResult(&res, "submitblock", raw); err != nil || string(res) != "null" {
			h.fail("submitblock at height %d: %s %v", height, res, err)
		}
	}
}

// restart stops the daemon, cleanly or with SIGKILL, and starts it again.
func (h *harness) restart() bool {
	if h.rng.Intn(2) == 0 {
		h.what = "daemon restart after kill -9"
		h.d.Kill()
	} else if err := h.d.Stop(); err != nil {
		h.fail("stop: %v", err)
	}
	h.startDaemon(true)
	return true
}

func (h *harness) rescan() bool {
	var res json.RawMessage
	if err := h.wallet.CallResult(&res, "rescanblockchain"); err != nil {
		h.fail("rescanblockchain: %v", err)
	}
	return true
}

// importWithHistory imports a script not watched yet, with timestamp 0, so
// that its payments and spends so far are found by the import's rescan.
func (h *harness) importWithHistory() bool {
	s := h.pendingSlot()
	if s == nil {
		return false
	}
	h.what = "import with history of " + s.desc
	h.importSlot(s)
	return true
}

// check computes the model from btcd and waits until the wallet agrees.
// The model is computed again before each comparison, so that nothing btcd
// still does after a call returned (it has nothing to do between steps)
// can make the two differ for good.
func (h *harness) check() {
	h.t.Helper()
	watched := Scripts{}
	for _, s := range append(append([]*slot{}, h.slots...), h.more...) {
		if s.imported {
			watched[string(s.out.Script)] = Watched{Address: s.out.Address, Change: s.change}
		}
	}
	deadline := time.Now().Add(checkTimeout)
	var want *View
	var c *Chain
	for {
		var tip string
		c, tip = h.readChain()
		want = Compute(c, watched, h.names)
		err := h.compare(want, tip)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			for i, n := range h.nodes {
				h.t.Logf("node %d's log ends:\n%s", i, logTail(n.d, 60))
			}
			if strings.Contains(err.Error(), "Client.Timeout") {
				// A node stopped answering: where its goroutines wait.
				for i, n := range h.nodes {
					h.t.Logf("node %d's goroutines:\n%s", i, n.d.Goroutines())
				}
			}
			h.fail("the wallet disagrees with the model: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.last, h.lastChain = want, c
	// A block conflict ends the abandoned state for good (Core's
	// MarkConflicted; a reorg that drops the block leaves the transaction
	// inactive, not abandoned).
	for id := range h.abandoned {
		if want.Txs[id.String()].Confirmations < 0 {
			delete(h.abandoned, id)
		}
	}
}

// readChain reads btcd's best chain (blocks cached by hash, the hashes of
// the heights below the highest one still on the chain kept) and mempool.
func (h *harness) readChain() (*Chain, string) {
	h.t.Helper()
	tip := int(h.n1.GetBlockCount())
	keep := min(tip, len(h.chain)-1)
	for ; keep >= 0; keep-- {
		if hs := h.n1.BlockHash(int64(keep)); hs == h.chain[keep].String() {
			break
		}
	}
	h.chain = h.chain[:keep+1]
	for height := keep + 1; height <= tip; height++ {
		hash, err := chainhash.NewHashFromStr(h.n1.BlockHash(int64(height)))
		if err != nil {
			h.fail("%v", err)
		}
		h.chain = append(h.chain, *hash)
	}
	c := &Chain{}
	for height, hash := range h.chain {
		blk, ok := h.blocks[hash]
		if !ok {
			blk = h.n1.Block(hash.String())
			h.blocks[hash] = blk
		}
		c.Blocks = append(c.Blocks, Block{Height: int32(height), Hash: hash, Txs: blk.Transactions})
	}
	tipHash := h.chain[tip].String()
	var ids []string
	if err := h.n1.CallResult(&ids, "getrawmempool"); err != nil {
		h.fail("getrawmempool: %v", err)
	}
	for _, s := range ids {
		id, err := chainhash.NewHashFromStr(s)
		if err != nil {
			h.fail("%v", err)
		}
		tx, ok := h.txCache[*id]
		if !ok {
			var raw string
			if err := h.n1.CallResult(&raw, "getrawtransaction", s, 0); err != nil {
				h.fail("getrawtransaction: %v", err)
			}
			tx = testenv.DecodeTx(h.t, raw)
			h.txCache[*id] = tx
		}
		c.Mempool = append(c.Mempool, tx)
	}
	if int(h.n1.GetBlockCount()) != tip || h.n1.BestBlockHash() != tipHash {
		h.fail("btcd's chain moved while it was read")
	}
	// Every transaction seen in the mempool, or made by the wallet and
	// never relayed, that is in neither the chain nor the mempool now.
	here := map[chainhash.Hash]bool{}
	for _, b := range c.Blocks {
		for _, tx := range b.Txs {
			here[tx.TxHash()] = true
		}
	}
	for _, tx := range c.Mempool {
		here[tx.TxHash()] = true
	}
	for _, m := range []map[chainhash.Hash]*wire.MsgTx{h.txCache, h.handed} {
		for id, tx := range m {
			if !here[id] {
				here[id] = true
				c.Gone = append(c.Gone, tx)
			}
		}
	}
	c.Abandoned, c.Replacements = h.abandoned, h.replacements
	return c, tipHash
}

// Wallet replies.
type walletEntry struct {
	TxID          string       `json:"txid"`
	Category      string       `json:"category"`
	Vout          uint32       `json:"vout"`
	Address       string       `json:"address"`
	Amount        json.Number  `json:"amount"`
	Fee           *json.Number `json:"fee"`
	Confirmations int64        `json:"confirmations"`
	BlockHash     string       `json:"blockhash"`
	Trusted       *bool        `json:"trusted"`
	Abandoned     *bool        `json:"abandoned"`
}

func (e walletEntry) entry(h *harness) Entry {
	out := Entry{TxID: e.TxID, Category: e.Category, Vout: e.Vout, Address: e.Address,
		Amount: h.sats(e.Amount), Confirmations: e.Confirmations, BlockHash: e.BlockHash, Trusted: e.Trusted,
		Abandoned: e.Abandoned != nil && *e.Abandoned}
	if e.Fee != nil {
		f := h.sats(*e.Fee)
		out.Fee = &f
	}
	return out
}

type walletTx struct {
	Amount        json.Number   `json:"amount"`
	Fee           *json.Number  `json:"fee"`
	Confirmations int64         `json:"confirmations"`
	BlockHash     string        `json:"blockhash"`
	Trusted       *bool         `json:"trusted"`
	Details       []walletEntry `json:"details"`
}

// compare reads the wallet on every node and returns how it differs from
// want.
func (h *harness) compare(want *View, tip string) error {
	for i, n := range h.nodes {
		if err := h.compareOn(n.wallet, want, tip); err != nil {
			if len(h.nodes) > 1 {
				return fmt.Errorf("node %d: %w", i, err)
			}
			return err
		}
	}
	return nil
}

// compareOn reads the wallet through w and returns how it differs from
// want.
func (h *harness) compareOn(w *testenv.Client, want *View, tip string) error {
	var wi struct {
		TxCount int `json:"txcount"`
		Last    struct {
			Hash string `json:"hash"`
		} `json:"lastprocessedblock"`
		Scanning json.RawMessage `json:"scanning"`
	}
	if err := w.CallResult(&wi, "getwalletinfo"); err != nil {
		return err
	}
	if wi.Last.Hash != tip {
		return fmt.Errorf("last processed block %s, btcd's tip %s", wi.Last.Hash, tip)
	}
	if string(wi.Scanning) != "false" {
		return fmt.Errorf("scanning %s", wi.Scanning)
	}

	var bal struct {
		Mine struct {
			Trusted          json.Number `json:"trusted"`
			UntrustedPending json.Number `json:"untrusted_pending"`
			Immature         json.Number `json:"immature"`
		} `json:"mine"`
	}
	if err := w.CallResult(&bal, "getbalances"); err != nil {
		return err
	}
	// The balances, listunspent and listtransactions are compared
	// together, so that a failure shows every difference.
	var diffs []string
	got := Balances{h.sats(bal.Mine.Trusted), h.sats(bal.Mine.UntrustedPending), h.sats(bal.Mine.Immature)}
	if got != want.Balances {
		diffs = append(diffs, fmt.Sprintf("getbalances %+v, model %+v", got, want.Balances))
	}

	var us []struct {
		TxID          string      `json:"txid"`
		Vout          uint32      `json:"vout"`
		Address       string      `json:"address"`
		Amount        json.Number `json:"amount"`
		Confirmations int64       `json:"confirmations"`
		Safe          bool        `json:"safe"`
	}
	if err := w.CallResult(&us, "listunspent", 0); err != nil {
		return err
	}
	gotU := []Unspent{}
	for _, u := range us {
		gotU = append(gotU, Unspent{u.TxID, u.Vout, u.Address, h.sats(u.Amount), u.Confirmations, u.Safe})
	}
	SortUnspent(gotU)
	if a, b := fmt.Sprint(gotU), fmt.Sprint(want.Unspent); a != b {
		var ga, wa []string
		for _, u := range gotU {
			ga = append(ga, u.String())
		}
		for _, u := range want.Unspent {
			wa = append(wa, u.String())
		}
		diffs = append(diffs, "listunspent 0:"+lineDiff(ga, wa))
	}

	var lt []walletEntry
	if err := w.CallResult(&lt, "listtransactions", "*", 1_000_000); err != nil {
		return err
	}
	gotE := []Entry{}
	for _, e := range lt {
		gotE = append(gotE, e.entry(h))
	}
	SortEntries(gotE)
	if a, b := JoinEntries(gotE), JoinEntries(want.Entries); a != b {
		var ga, wa []string
		for _, e := range gotE {
			ga = append(ga, e.String())
		}
		for _, e := range want.Entries {
			wa = append(wa, e.String())
		}
		diffs = append(diffs, "listtransactions:"+lineDiff(ga, wa))
	}
	if len(diffs) > 0 {
		return errors.New(strings.Join(diffs, "\n"))
	}

	// gettransaction of every wallet transaction, and of a transaction
	// that is not the wallet's (the first block's coinbase), in one batch.
	var ids []string
	for id := range want.Txs {
		ids = append(ids, id)
	}
	replies, err := h.batch(w, "gettransaction", append(ids, h.outside))
	if err != nil {
		return err
	}
	for i, id := range ids {
		r := replies[i]
		if r.Error != nil {
			return fmt.Errorf("gettransaction %s: %d %s", id, r.Error.Code, r.Error.Message)
		}
		var gt walletTx
		if err := json.Unmarshal(r.Result, &gt); err != nil {
			return err
		}
		tv := TxView{Amount: h.sats(gt.Amount), Confirmations: gt.Confirmations, BlockHash: gt.BlockHash,
			Trusted: gt.Trusted}
		if gt.Fee != nil {
			f := h.sats(*gt.Fee)
			tv.Fee = &f
		}
		for _, d := range gt.Details {
			e := d.entry(h)
			e.TxID, e.Confirmations, e.BlockHash, e.Trusted = id, tv.Confirmations, tv.BlockHash, tv.Trusted
			tv.Details = append(tv.Details, e)
		}
		SortEntries(tv.Details)
		if a, b := tv.String(), want.Txs[id].String(); a != b {
			return fmt.Errorf("gettransaction %s:\n  got  %s\n  want %s", id, a, b)
		}
	}
	if wi.TxCount != len(want.Txs) {
		return fmt.Errorf("txcount %d, model %d", wi.TxCount, len(want.Txs))
	}
	if r := replies[len(ids)]; r.Error == nil || r.Error.Code != -5 ||
		r.Error.Message != "Invalid or non-wallet transaction id" {
		return fmt.Errorf("gettransaction of a transaction not the wallet's: %s %+v", r.Result, r.Error)
	}
	return nil
}

// logTail returns the last n lines of the daemon's debug log.
func logTail(d *testenv.Daemon, n int) string {
	data, err := os.ReadFile(filepath.Join(d.NetDir, "debug.log"))
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// lineDiff prints the lines only the wallet's reply has and those only
// the model's has.
func lineDiff(got, want []string) string {
	count := map[string]int{}
	for _, l := range want {
		count[l]++
	}
	var b strings.Builder
	for _, l := range got {
		if count[l] > 0 {
			count[l]--
			continue
		}
		b.WriteString("\n  wallet only: " + l)
	}
	count = map[string]int{}
	for _, l := range got {
		count[l]++
	}
	for _, l := range want {
		if count[l] > 0 {
			count[l]--
			continue
		}
		b.WriteString("\n  model only:  " + l)
	}
	return b.String()
}

type batchReply struct {
	Result json.RawMessage   `json:"result"`
	Error  *testenv.RPCError `json:"error"`
	ID     int               `json:"id"`
}

// batch calls method once per argument in one JSON-RPC batch and returns
// the replies in argument order.
func (h *harness) batch(w *testenv.Client, method string, args []string) ([]batchReply, error) {
	type req struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Method  string `json:"method"`
		Params  []any  `json:"params"`
	}
	reqs := make([]req, len(args))
	for i, a := range args {
		reqs[i] = req{"1.0", i, method, []any{a}}
	}
	body, err := json.Marshal(reqs)
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequest(http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.SetBasicAuth(w.User, w.Pass)
	hr.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var replies []batchReply
	if err := json.Unmarshal(data, &replies); err != nil {
		return nil, fmt.Errorf("batch reply %q: %v", data, err)
	}
	out := make([]batchReply, len(args))
	seen := 0
	for _, r := range replies {
		if r.ID < 0 || r.ID >= len(args) {
			return nil, errors.New("batch reply with an unknown id")
		}
		out[r.ID] = r
		seen++
	}
	if seen != len(args) {
		return nil, fmt.Errorf("%d batch replies for %d calls", seen, len(args))
	}
	return out, nil
}

// sats reads an amount printed with eight decimals.
func (h *harness) sats(n json.Number) int64 {
	s := n.String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) != 8 {
		h.fail("amount %q without eight decimals", n)
	}
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		h.fail("amount %q", n)
	}
	v := w*100_000_000 + f
	if neg {
		v = -v
	}
	return v
}

// btc prints satoshis as a JSON amount.
func btc(sats int64) json.Number {
	return json.Number(fmt.Sprintf("%d.%08d", sats/100_000_000, sats%100_000_000))
}
