package safego

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// secretPanic panics with a value that must never reach the log.
func secretPanic(secret string) { panic("key " + secret) }

func captureLog(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	SetLogger(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { SetLogger(nil) })
	return &buf
}

func TestGoTurnsPanicIntoError(t *testing.T) {
	logs := captureLog(t)
	const secret = "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi"
	err := <-Go("test task", func() error { secretPanic(secret); return nil })
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want a *PanicError", err)
	}
	if pe.Where != "test task" || !strings.Contains(pe.Error(), "test task") {
		t.Errorf("PanicError %q does not name its task", pe.Error())
	}
	if !strings.Contains(logs.String(), "recovered panic") {
		t.Errorf("panic not logged: %s", logs)
	}
	if !strings.Contains(pe.Stack, "secretPanic(...)") {
		t.Errorf("stack lacks the panicking function: %s", pe.Stack)
	}
	for _, s := range []string{logs.String(), pe.Error(), pe.Stack} {
		if strings.Contains(s, secret) || strings.Contains(s, "xprv") {
			t.Fatalf("panic value leaked: %s", s)
		}
	}
}

func TestGoReturnsResult(t *testing.T) {
	want := errors.New("plain failure")
	if err := <-Go("ok", func() error { return nil }); err != nil {
		t.Fatalf("got %v", err)
	}
	done := Go("fail", func() error { return want })
	if err := <-done; err != want {
		t.Fatalf("got %v, want %v", err, want)
	}
	if _, open := <-done; open {
		t.Fatal("channel not closed after the result")
	}
}

func TestRuntimeErrorReason(t *testing.T) {
	captureLog(t)
	var m map[string]int
	err := Run("nil map", func() error { m["x"] = 1; return nil })
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "nil map") {
		t.Fatalf("got %v, want the runtime's message", err)
	}
}

func TestGroup(t *testing.T) {
	captureLog(t)
	var g Group
	for i := range 8 {
		g.Go("worker", func() error {
			if i == 5 {
				var s []int
				_ = s[i]
			}
			return nil
		})
	}
	err := g.Wait()
	var pe *PanicError
	if !errors.As(err, &pe) || !g.Failed() {
		t.Fatalf("got %v, want a *PanicError", err)
	}
	var ok Group
	ok.Go("a", func() error { return nil })
	if err := ok.Wait(); err != nil || ok.Failed() {
		t.Fatalf("got %v", err)
	}
}
