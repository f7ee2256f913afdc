package wallet_test

import (
	"context"
	"testing"

	"github.com/descwallet/descwallet/internal/wallet"
)

// BenchmarkUnlock measures walletpassphrase on a wallet with Core's eight
// default descriptors: the Argon2id derivation with the wallet's parameters,
// opening the master key and every sealed record, and rebuilding the
// private descriptors. Its time per operation is the unlock time a user
// sees.
func BenchmarkUnlock(b *testing.B) {
	ctx := context.Background()
	m := newManager(b.TempDir())
	defer m.Close()
	w, _, err := m.Create(ctx, "enc", wallet.CreateOptions{Passphrase: strp("correct horse")})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.Unlock(ctx, "correct horse", 60); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := w.Lock(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkWrongPassphrase measures a rejected walletpassphrase: the cost
// of one guess for an attacker who holds the wallet file is at least this.
func BenchmarkWrongPassphrase(b *testing.B) {
	ctx := context.Background()
	m := newManager(b.TempDir())
	defer m.Close()
	w, _, err := m.Create(ctx, "enc", wallet.CreateOptions{Blank: true, Passphrase: strp("correct horse")})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.Unlock(ctx, "wrong horse", 60); err == nil {
			b.Fatal("wrong passphrase accepted")
		}
	}
}
