package archtest

import (
	"errors"
	"testing"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/musig"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/wallet"
)

// TestSameNameKindsStayDistinct checks, over the real packages, that an
// error kind never matches another package's kind of the same name: the RPC
// error table maps by errors.Is and its first matching row wins, so a
// collision would answer one package's failure with another's code.
func TestSameNameKindsStayDistinct(t *testing.T) {
	pairs := []struct {
		name string
		a, b error
	}{
		{"chain/wallet ErrNotFound", chain.ErrNotFound, wallet.ErrNotFound},
		{"script/musig ErrInvalidPubKey", script.ErrInvalidPubKey, musig.ErrInvalidPubKey},
		{"descriptor/sign ErrInvalidKey", descriptor.ErrInvalidKey, sign.ErrInvalidKey},
	}
	for _, p := range pairs {
		if p.a.Error() != p.b.Error() {
			t.Fatalf("%s: the kinds are no longer named alike (%q, %q); pick another pair", p.name, p.a, p.b)
		}
		if errors.Is(p.a, p.b) || errors.Is(p.b, p.a) {
			t.Errorf("%s: the kinds match each other", p.name)
		}
	}
	// And through the errors the packages return.
	ce := &chain.Error{Kind: chain.ErrNotFound, Description: "block not found"}
	if !errors.Is(ce, chain.ErrNotFound) || errors.Is(ce, wallet.ErrNotFound) {
		t.Error("a chain not-found error matches wallet.ErrNotFound, or not its own kind")
	}
	se := &script.Error{Kind: script.ErrInvalidPubKey, Description: "x"}
	if !errors.Is(se, script.ErrInvalidPubKey) || errors.Is(se, musig.ErrInvalidPubKey) {
		t.Error("a script error matches musig.ErrInvalidPubKey, or not its own kind")
	}
}
