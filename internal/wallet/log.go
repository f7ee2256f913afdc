package wallet

import (
	"context"
	"encoding/hex"
	"log/slog"
	"time"
)

// The wallet logs at debug level to two subsystems: Config.Log (WLLT:
// wallets created, loaded and unloaded, descriptors imported, addresses
// handed out) and Config.DescLog (DESC: descriptor ranges expanded). A
// line names a descriptor by the first bytes of its id, never by its
// text, and never carries a key, a passphrase or an error's text (a
// parser's message may quote what it parsed).

// debug logs msg at debug level on l with the wallet's name, when l is set
// and enabled.
func (w *Wallet) debug(l *slog.Logger, msg string, args ...any) {
	if l == nil || !l.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	l.Debug(msg, append([]any{"wallet", w.cfg.Name}, args...)...)
}

// descTag is a descriptor's short name in the log.
func descTag(id [32]byte) string { return hex.EncodeToString(id[:4]) }

// logDerived logs an expansion of a descriptor's range [start, end).
func (w *Wallet) logDerived(why string, id [32]byte, start, end int64, blocks []derived, took time.Duration) {
	n := 0
	for _, b := range blocks {
		n += len(b.digest)
	}
	w.debug(w.cfg.DescLog, "descriptor range expanded", "for", why, "descriptor", descTag(id),
		"start", start, "end", end, "scripts", n, "took", took.Round(time.Microsecond))
}
