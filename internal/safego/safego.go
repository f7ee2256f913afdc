package safego

import (
	"bytes"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// PanicError is the error a recovered panic turns into. It carries no part
// of the panic value except, for runtime errors (nil dereference, index out
// of range and the like), the runtime's own message, which never holds
// data.
type PanicError struct {
	// Where names the goroutine's task, as given to Go or Group.Go.
	Where string
	// Reason is the runtime error's message, or the panic value's type.
	Reason string
	// Stack is the goroutine's stack, function names and lines only.
	Stack string
}

func (e *PanicError) Error() string {
	return "internal error: panic in " + e.Where + ": " + e.Reason
}

var logger atomic.Pointer[slog.Logger]

// SetLogger sets where recovered panics are logged; nil restores the
// default (slog.Default()).
func SetLogger(l *slog.Logger) { logger.Store(l) }

func log() *slog.Logger {
	if l := logger.Load(); l != nil {
		return l
	}
	return slog.Default()
}

// Recover turns a panic value p (from recover()) into a *PanicError and
// logs it; it returns nil when p is nil. Call it as
//
//	defer func() { if e := safego.Recover("what", recover()); e != nil { err = e } }()
func Recover(where string, p any) *PanicError {
	if p == nil {
		return nil
	}
	e := &PanicError{Where: where, Reason: reason(p), Stack: cleanStack(debug.Stack())}
	log().Error("recovered panic", "in", where, "reason", e.Reason, "stack", e.Stack)
	return e
}

// reason describes a panic value without formatting what it may carry:
// runtime errors by their message, anything else by its type.
func reason(p any) string {
	if re, ok := p.(runtime.Error); ok {
		return re.Error()
	}
	return fmt.Sprintf("panic value of type %T", p)
}

// cleanStack drops the argument words from the function lines of a
// stack trace: they can hold parts of whatever the function was given.
func cleanStack(st []byte) string {
	var out []byte
	for line := range bytes.Lines(st) {
		if len(line) > 0 && line[0] != '\t' {
			if open := bytes.LastIndexByte(line, '('); open > 0 && bytes.HasSuffix(bytes.TrimRight(line, "\n"), []byte(")")) {
				out = append(out, line[:open]...)
				out = append(out, "(...)\n"...)
				continue
			}
		}
		out = append(out, line...)
	}
	return string(out)
}

// Run calls f on the current goroutine and returns its error, or a
// *PanicError when f panics.
func Run(where string, f func() error) (err error) {
	defer func() {
		if e := Recover(where, recover()); e != nil {
			err = e
		}
	}()
	return f()
}

// Go runs f on a new goroutine. The returned channel receives f's error
// (nil on success, a *PanicError when f panicked) and is then closed; it is
// buffered, so nobody has to read it.
func Go(where string, f func() error) <-chan error {
	done := make(chan error, 1)
	go func() {
		defer close(done)
		done <- Run(where, f)
	}()
	return done
}

// Group runs goroutines and waits for them all, like sync.WaitGroup, and
// keeps the first error (or recovered panic) any of them returned. The
// zero value is ready to use.
type Group struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error
}

// Go runs f on a new goroutine of the group.
func (g *Group) Go(where string, f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := Run(where, f); err != nil {
			g.mu.Lock()
			if g.err == nil {
				g.err = err
			}
			g.mu.Unlock()
		}
	}()
}

// Failed reports whether a goroutine of the group has already failed, so
// that the others can stop early.
func (g *Group) Failed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err != nil
}

// Wait waits for every goroutine started so far and returns the first
// error.
func (g *Group) Wait() error {
	g.wg.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}
