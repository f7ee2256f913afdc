package errkind_test

import (
	"errors"
	"io"
	"testing"

	"github.com/descwallet/descwallet/errkind"
	"github.com/descwallet/descwallet/errkind/errkindtest"
)

// Two packages' tags and kinds of the same name, as chain.ErrNotFound and
// wallet.ErrNotFound are.
type chainTag struct{}
type walletTag struct{}

type wrapTag struct{}

func (wrapTag) CauseInMessage() {}

const (
	chainNotFound  = errkind.Kind[chainTag]("ErrNotFound")
	chainAuth      = errkind.Kind[chainTag]("ErrAuth")
	walletNotFound = errkind.Kind[walletTag]("ErrNotFound")
)

func TestSameNameKindsOfTwoPackagesStayDistinct(t *testing.T) {
	ce := errkind.New(chainNotFound, "block not found")
	we := errkind.New(walletNotFound, "Invalid or non-wallet transaction id")
	if !errors.Is(ce, chainNotFound) || !errors.Is(we, walletNotFound) {
		t.Fatal("an error does not match its own kind")
	}
	if errors.Is(ce, walletNotFound) || errors.Is(we, chainNotFound) {
		t.Fatal("a kind matches another package's kind of the same name")
	}
	// The bare kinds as errors, as errmap's table holds them.
	if errors.Is(chainNotFound, walletNotFound) || errors.Is(walletNotFound, chainNotFound) {
		t.Fatal("kinds of the same name from two packages compare equal")
	}
	if errors.Is(ce, chainAuth) {
		t.Fatal("an error matches another kind of its package")
	}
	// errors.As finds the package's own *Error only.
	var wp *errkind.Error[walletTag]
	if errors.As(ce, &wp) {
		t.Fatal("errors.As found a wallet error in a chain error")
	}
	var cp *errkind.Error[chainTag]
	if !errors.As(ce, &cp) || cp.Kind != chainNotFound {
		t.Fatal("errors.As did not find the chain error")
	}
}

func TestMessageAndCause(t *testing.T) {
	e := errkind.New(chainNotFound, "desc")
	if e.Error() != "desc" || e.Kind.Error() != "ErrNotFound" {
		t.Fatalf("got %q, kind %q", e.Error(), e.Kind.Error())
	}
	w := errkind.Wrap(chainNotFound, "desc", io.EOF)
	if w.Error() != "desc" {
		t.Fatalf("cause leaked into the message: %q", w.Error())
	}
	if !errors.Is(w, io.EOF) || !errors.Is(w, chainNotFound) {
		t.Fatal("a wrapped error does not match its kind and its cause")
	}
	c := errkind.Wrap(errkind.Kind[wrapTag]("ErrX"), "desc", io.EOF)
	if c.Error() != "desc: EOF" {
		t.Fatalf("CauseInMessage: got %q", c.Error())
	}
	if c := errkind.New(errkind.Kind[wrapTag]("ErrX"), "desc"); c.Error() != "desc" {
		t.Fatalf("CauseInMessage without a cause: got %q", c.Error())
	}
}

func TestCheckKinds(t *testing.T) {
	errkindtest.CheckKinds(t, chainNotFound, chainAuth)
}
