// Package storetest owns the tests that every wallet store (the SQLite
// store and the PostgreSQL store) must pass alike, written once against a
// small store-neutral view of one wallet's data. Each store's tests adapt
// a fresh wallet to that view and run them, so the two stores are held to
// one table of expectations. It imports nothing of the module.
package storetest

import (
	"fmt"
	"testing"
)

// EventLog is one wallet's event log in the store under test.
type EventLog interface {
	// Append appends an event written at time tm with the detail given
	// (received, unconfirmed) and returns its cursor.
	Append(tm int64, detail []byte) (int64, error)
	// Prune runs the store's PruneEvents(keep, before, held) in one write
	// transaction.
	Prune(keep, before int64, held []string) (through, removed int64, err error)
	// Events reads at most 100 events after a cursor: their cursors and
	// details, and the cursor through which the log was pruned.
	Events(after int64) (cursors []int64, details [][]byte, pruned int64, err error)
	// Ack records a delivery target's acknowledged cursor.
	Ack(target string, cursor int64) error
}

// retentionSteps prune the log of ten events written at times 100..109,
// the fifth at 200 (a clock that went back afterwards), one after the
// other: keep the newest keep events (0: no count) and those written at or
// after before (0: no age).
var retentionSteps = []struct {
	what                           string
	keep, before, through, removed int64
}{
	{"keep 8", 8, 0, 2, 2},
	// Cursor 4 is at time 103.
	{"older than 103", 0, 103, 3, 1},
	// Cursor 5, written at 200, stops it: the log stays a suffix.
	{"older than 150", 0, 150, 4, 1},
	{"both, the count removing more", 3, 150, 7, 3},
	{"a larger count than before", 5, 0, 7, 0},
	// All but the newest event.
	{"older than 1000", 0, 1000, 9, 2},
}

// heldSteps prune a log of ten events with delivery targets a and b
// named (held) and acknowledged cursors set before each step (0: not
// set): a target that acknowledged nothing holds the whole log, the
// lowest acknowledged cursor bounds the rest, and a target not named holds
// nothing.
var heldSteps = []struct {
	what             string
	ackA, ackB       int64
	keep             int64
	held             []string
	through, removed int64
}{
	{"b acknowledged nothing", 0, 0, 2, []string{targetA, targetB}, 0, 0},
	{"b at 3", 6, 3, 2, []string{targetA, targetB}, 3, 3},
	{"a at 6, below the count's 8", 0, 9, 2, []string{targetA, targetB}, 6, 3},
	{"the count, with a no longer named", 0, 0, 3, []string{targetB}, 7, 1},
}

const (
	targetA    = "http://127.0.0.1:1/a"
	targetB    = "http://127.0.0.1:1/b"
	targetGone = "http://127.0.0.1:1/gone"
)

// detail is the content every event of the tests carries.
const detail = `{"amount":1}`

// EventRetention runs the event log's retention rules against fresh
// wallets from open: pruning by count and by age removes a prefix of the
// log and records how far, never going back, keeps the newest event and
// the details as written, cursors go on after an emptied log, and
// delivery targets hold what they have not acknowledged.
func EventRetention(t *testing.T, open func(t *testing.T) EventLog) {
	t.Run("count and age", func(t *testing.T) {
		l := open(t)
		appendTen(t, l, func(i int) int64 {
			if i == 4 {
				return 200
			}
			return int64(100 + i)
		})
		for _, st := range retentionSteps {
			checkPrune(t, l, st.what, st.keep, st.before, nil, st.through, st.removed)
			if st.through == 7 {
				// A reader's cursor older than what is kept.
				cs, ds, pruned, err := l.Events(2)
				if err != nil || pruned != 7 || fmt.Sprint(cs) != "[8 9 10]" || string(ds[0]) != detail {
					t.Errorf("%s: events after 2: %v %q pruned %d %v", st.what, cs, ds, pruned, err)
				}
			}
		}
		c, err := l.Append(2000, nil)
		if err != nil || c != 11 {
			t.Errorf("cursor after an emptied log: %d %v, want 11", c, err)
		}
	})
	t.Run("held by deliveries", func(t *testing.T) {
		l := open(t)
		appendTen(t, l, func(i int) int64 { return int64(100 + i) })
		if err := l.Ack(targetGone, 1); err != nil {
			t.Fatal(err)
		}
		for _, st := range heldSteps {
			for _, a := range []struct {
				target string
				cursor int64
			}{{targetA, st.ackA}, {targetB, st.ackB}} {
				if a.cursor == 0 {
					continue
				}
				if err := l.Ack(a.target, a.cursor); err != nil {
					t.Fatal(err)
				}
			}
			checkPrune(t, l, st.what, st.keep, 0, st.held, st.through, st.removed)
		}
	})
}

// appendTen appends ten events, the i-th (from 0) written at at(i), and
// checks their cursors are 1..10.
func appendTen(t *testing.T, l EventLog, at func(i int) int64) {
	t.Helper()
	for i := range 10 {
		c, err := l.Append(at(i), []byte(detail))
		if err != nil {
			t.Fatal(err)
		}
		if c != int64(i+1) {
			t.Fatalf("event %d has cursor %d", i+1, c)
		}
	}
}

// checkPrune prunes the log with keep, before and held (step what) and
// checks that it went through and removed what it should, and that the
// events after through are all still there.
func checkPrune(t *testing.T, l EventLog, what string, keep, before int64, held []string, through, removed int64) {
	t.Helper()
	th, n, err := l.Prune(keep, before, held)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if th != through || n != removed {
		t.Errorf("%s: through %d removed %d, want %d %d", what, th, n, through, removed)
	}
	if err := wholeAfter(l, through, 10); err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

// wholeAfter checks that the log holds exactly the events after through,
// up to last, with their details, and says it was pruned through there.
func wholeAfter(l EventLog, through, last int64) error {
	cs, ds, pruned, err := l.Events(0)
	if err != nil {
		return err
	}
	if pruned != through {
		return fmt.Errorf("pruned through %d, want %d", pruned, through)
	}
	var want []int64
	for c := through + 1; c <= last; c++ {
		want = append(want, c)
	}
	if fmt.Sprint(cs) != fmt.Sprint(want) {
		return fmt.Errorf("cursors %v, want %v", cs, want)
	}
	for i, d := range ds {
		if string(d) != detail {
			return fmt.Errorf("event %d detail %q", cs[i], d)
		}
	}
	return nil
}
