package acctest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
)

// The steps in this file spend through the wallet's own calls
// (sendtoaddress, sendmany, bumpfee, lockunspent, abandontransaction).
// The model learns of what they made only from btcd's mempool and blocks;
// the txid a call returns is the only link, used to pick what to bump or
// abandon, and to read once a transaction btcd never saw.

// safeCoins returns the coins the wallet may spend without being told to
// (listunspent's safe ones), less skip, and their total.
func (h *harness) safeCoins(skip *Unspent) ([]Unspent, int64) {
	var out []Unspent
	var total int64
	for _, u := range h.last.Unspent {
		if !u.Safe || skip != nil && u.TxID == skip.TxID && u.Vout == skip.Vout {
			continue
		}
		out = append(out, u)
		total += u.Amount
	}
	return out, total
}

// walletDest picks where a wallet payment goes: to itself (a script it
// watches, or a new address from getnewaddress, which must be one of its
// receiving descriptor's) or outside (a stranger, or a script the wallet
// does not watch yet).
func (h *harness) walletDest(toSelf bool) testenv.Output {
	if toSelf {
		if h.rng.Intn(3) == 0 {
			var addr string
			if err := h.wallet.CallResult(&addr, "getnewaddress"); err != nil {
				h.fail("getnewaddress: %v", err)
			}
			s := h.slotOf(addr)
			if !s.imported || !s.ranged || s.change {
				h.fail("getnewaddress gave %s, not of the receiving descriptor", addr)
			}
			return s.out
		}
		return h.importedSlot().out
	}
	if h.rng.Intn(3) == 0 {
		if s := h.pendingSlot(); s != nil {
			return s.out
		}
	}
	return h.strangers[h.rng.Intn(len(h.strangers))]
}

// walletSent records a transaction a sending call made and checks that
// btcd holds it (unless the daemon does not relay) and that it pays
// want[i] to dests[i] (less a part of the fee where subtract[i]).
func (h *harness) walletSent(txid string, dests []testenv.Output, want []int64, subtract []bool) *wire.MsgTx {
	h.t.Helper()
	h.sent = append(h.sent, txid)
	if h.noRelay {
		return nil
	}
	if !h.n1.InMempool(txid) {
		h.fail("btcd's mempool does not hold the wallet's %s", txid)
	}
	var raw string
	if err := h.n1.CallResult(&raw, "getrawtransaction", txid, 0); err != nil {
		h.fail("getrawtransaction %s: %v", txid, err)
	}
	tx := testenv.DecodeTx(h.t, raw)
	for i, d := range dests {
		paid := false
		for _, o := range tx.TxOut {
			if string(o.PkScript) != string(d.Script) {
				continue
			}
			if o.Value == want[i] || subtract[i] && o.Value < want[i] && o.Value > want[i]-20_000 {
				paid = true
			}
		}
		if !paid {
			h.fail("%s does not pay %d to %s (subtract %v): %v", txid, want[i], d.Address, subtract[i], outputs(tx))
		}
	}
	return tx
}

func outputs(tx *wire.MsgTx) []string {
	var out []string
	for _, o := range tx.TxOut {
		out = append(out, fmt.Sprintf("%d:%x", o.Value, o.PkScript))
	}
	return out
}

// feeRate is a random explicit fee rate in sat/vB: btcd estimates none.
func (h *harness) feeRate() int {
	return 1 + h.rng.Intn(5)
}

// sendToAddress pays with sendtoaddress, to outside or to the wallet
// itself, now and then with the fee subtracted from the amount.
func (h *harness) sendToAddress() bool {
	_, avail := h.safeCoins(nil)
	if avail < 100_000 {
		return false
	}
	toSelf := h.rng.Intn(3) == 0
	dest := h.walletDest(toSelf)
	amount := 20_000 + h.rng.Int63n(avail/2-20_000)
	subtract := h.rng.Intn(3) == 0
	var txid string
	if err := h.wallet.CallResult(&txid, "sendtoaddress", dest.Address, btc(amount), "", "", subtract, true,
		nil, nil, nil, h.feeRate()); err != nil {
		h.fail("sendtoaddress %s %d subtract=%v (safe coins %d): %v", dest.Address, amount, subtract, avail, err)
	}
	h.walletSent(txid, []testenv.Output{dest}, []int64{amount}, []bool{subtract})
	if toSelf {
		h.counts["(sendtoaddress to self)"]++
	}
	if subtract {
		h.counts["(sendtoaddress subtracting the fee)"]++
	}
	return true
}

// sendMany pays two or three distinct scripts, outside and the wallet's
// own mixed, with the fee subtracted from some of them now and then.
func (h *harness) sendMany() bool {
	_, avail := h.safeCoins(nil)
	if avail < 200_000 {
		return false
	}
	n := 2 + h.rng.Intn(2)
	amounts := map[string]json.Number{}
	var dests []testenv.Output
	var want []int64
	var subtract []bool
	var from []string
	left := avail / 2
	for len(dests) < n {
		d := h.walletDest(h.rng.Intn(2) == 0)
		if _, dup := amounts[d.Address]; dup {
			continue
		}
		v := 20_000 + h.rng.Int63n(left/int64(n)-20_000)
		amounts[d.Address] = btc(v)
		dests, want = append(dests, d), append(want, v)
		sub := h.rng.Intn(4) == 0
		subtract = append(subtract, sub)
		if sub {
			from = append(from, d.Address)
		}
	}
	var txid string
	if err := h.wallet.CallResult(&txid, "sendmany", "", amounts, nil, nil, from, true, nil, nil,
		h.feeRate()); err != nil {
		h.fail("sendmany %v subtracting from %v (safe coins %d): %v", amounts, from, avail, err)
	}
	h.walletSent(txid, dests, want, subtract)
	return true
}

// bumpFee bumps the fee of one of the wallet's payments still in btcd's
// mempool with nothing spending its outputs: the replacement takes its
// place in the mempool, and the model sees the original leave it.
func (h *harness) bumpFee() bool {
	pool := map[chainhash.Hash]*wire.MsgTx{}
	spent := map[chainhash.Hash]bool{}
	for _, txs := range [][]*wire.MsgTx{h.lastChain.Mempool, h.lastChain.Gone} {
		for _, tx := range txs {
			for _, in := range tx.TxIn {
				spent[in.PreviousOutPoint.Hash] = true
			}
		}
	}
	for _, tx := range h.lastChain.Mempool {
		pool[tx.TxHash()] = tx
	}
	var cands []string
	for _, id := range h.sent {
		hash, err := chainhash.NewHashFromStr(id)
		if err != nil {
			h.fail("%v", err)
		}
		if pool[*hash] != nil && !spent[*hash] {
			cands = append(cands, id)
		}
	}
	if len(cands) == 0 {
		return false
	}
	orig := cands[h.rng.Intn(len(cands))]
	var bump struct {
		TxID   string          `json:"txid"`
		Errors json.RawMessage `json:"errors"`
	}
	if err := h.wallet.CallResult(&bump, "bumpfee", orig); err != nil {
		h.fail("bumpfee %s: %v", orig, err)
	}
	if string(bump.Errors) != "[]" {
		h.fail("bumpfee %s: errors %s", orig, bump.Errors)
	}
	h.what = "bumpfee of " + orig
	id, err := chainhash.NewHashFromStr(bump.TxID)
	if err != nil {
		h.fail("bumpfee's txid %q: %v", bump.TxID, err)
	}
	h.replacements[*id] = true
	h.sent = append(h.sent, bump.TxID)
	if h.n1.InMempool(orig) || !h.n1.InMempool(bump.TxID) {
		h.fail("after bumpfee btcd holds the original %v, the replacement %s %v", h.n1.InMempool(orig),
			bump.TxID, h.n1.InMempool(bump.TxID))
	}
	return true
}

// lockAndSend locks one of the wallet's safe coins, pays outside with
// sendtoaddress, checks that the payment does not spend the locked coin
// and that a payment only the locked coin could fund fails, and unlocks it.
func (h *harness) lockAndSend() bool {
	coins, _ := h.safeCoins(nil)
	if len(coins) < 2 {
		return false
	}
	lock := coins[h.rng.Intn(len(coins))]
	_, rest := h.safeCoins(&lock)
	if rest < 100_000 {
		return false
	}
	out := []map[string]any{{"txid": lock.TxID, "vout": lock.Vout}}
	persistent := h.rng.Intn(2) == 0
	var ok bool
	if err := h.wallet.CallResult(&ok, "lockunspent", false, out, persistent); err != nil || !ok {
		h.fail("lockunspent %s:%d: %v %v", lock.TxID, lock.Vout, ok, err)
	}
	var locked []struct {
		TxID string `json:"txid"`
		Vout uint32 `json:"vout"`
	}
	if err := h.wallet.CallResult(&locked, "listlockunspent"); err != nil {
		h.fail("listlockunspent: %v", err)
	}
	if len(locked) != 1 || locked[0].TxID != lock.TxID || locked[0].Vout != lock.Vout {
		h.fail("listlockunspent %+v after locking %s:%d", locked, lock.TxID, lock.Vout)
	}
	dest := h.walletDest(false)
	amount := 20_000 + h.rng.Int63n(rest/2-20_000)
	var txid string
	if err := h.wallet.CallResult(&txid, "sendtoaddress", dest.Address, btc(amount), "", "", false, true,
		nil, nil, nil, h.feeRate()); err != nil {
		h.fail("sendtoaddress %d with %s:%d locked (other safe coins %d): %v", amount, lock.TxID, lock.Vout, rest, err)
	}
	tx := h.walletSent(txid, []testenv.Output{dest}, []int64{amount}, []bool{false})
	for _, in := range tx.TxIn {
		if in.PreviousOutPoint.Hash.String() == lock.TxID && in.PreviousOutPoint.Index == lock.Vout {
			h.fail("%s spends the locked coin %s:%d", txid, lock.TxID, lock.Vout)
		}
	}
	// What is left without the locked coin is less than rest: a payment
	// of rest needs the locked coin.
	_, err := h.wallet.Call("sendtoaddress", dest.Address, btc(rest), "", "", false, true, nil, nil, nil, 1)
	var re *testenv.RPCError
	if !errors.As(err, &re) || re.Code != -6 || !strings.Contains(re.Message, "Insufficient funds") {
		h.fail("sendtoaddress %d with %s:%d locked: %v, want -6 Insufficient funds", rest, lock.TxID, lock.Vout, err)
	}
	if err := h.wallet.CallResult(&ok, "lockunspent", true, out); err != nil || !ok {
		h.fail("unlock %s:%d: %v %v", lock.TxID, lock.Vout, ok, err)
	}
	return true
}

// abandonUnrelayed restarts the daemon with -walletbroadcast=0, pays with
// sendtoaddress (btcd never sees the transaction: the test reads it once
// from gettransaction by the txid returned, and checks the wallet keeps
// its inputs spent), abandons it or not, and starts the daemon relaying
// again.
func (h *harness) abandonUnrelayed() bool {
	_, avail := h.safeCoins(nil)
	if avail < 100_000 {
		return false
	}
	if err := h.d.Stop(); err != nil {
		h.fail("stop: %v", err)
	}
	h.noRelay = true
	h.startDaemon(true)
	// The restart loses no safe coin: the daemon must have caught up.
	h.what = "restart with -walletbroadcast=0"
	h.check()
	dest := h.walletDest(h.rng.Intn(3) == 0)
	amount := 20_000 + h.rng.Int63n(avail/2-20_000)
	var txid string
	if err := h.wallet.CallResult(&txid, "sendtoaddress", dest.Address, btc(amount), "", "", false, true,
		nil, nil, nil, h.feeRate()); err != nil {
		h.fail("sendtoaddress without relay: %v", err)
	}
	h.walletSent(txid, nil, nil, nil)
	if h.n1.InMempool(txid) {
		h.fail("-walletbroadcast=0, yet btcd holds %s", txid)
	}
	var gt struct {
		Hex string `json:"hex"`
	}
	if err := h.wallet.CallResult(&gt, "gettransaction", txid); err != nil {
		h.fail("gettransaction %s: %v", txid, err)
	}
	tx := testenv.DecodeTx(h.t, gt.Hex)
	if tx.TxHash().String() != txid {
		h.fail("gettransaction %s gave the hex of %s", txid, tx.TxHash())
	}
	h.handed[tx.TxHash()] = tx
	h.what = "payment never relayed " + txid
	h.check()
	if h.rng.Intn(3) != 0 {
		var res json.RawMessage
		if err := h.wallet.CallResult(&res, "abandontransaction", txid); err != nil {
			h.fail("abandontransaction %s: %v", txid, err)
		}
		h.abandoned[tx.TxHash()] = true
		h.what = "abandoned " + txid
		h.check()
		h.counts["(abandoned)"]++
	}
	if err := h.d.Stop(); err != nil {
		h.fail("stop: %v", err)
	}
	h.noRelay = false
	h.startDaemon(true)
	h.what = "relaying again after " + txid
	return true
}
