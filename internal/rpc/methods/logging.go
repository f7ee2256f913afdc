package methods

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"sync"

	"github.com/descwallet/descwallet/internal/rpc"
)

// LogControl switches the debug level of the node's log subsystems (the
// tags RPCS, WLLT, DESC, SCAN, STOR, NODE of -debug).
type LogControl interface {
	// IsDebug reports whether subsystem tag logs at debug level.
	IsDebug(tag string) bool
	// SetTagDebug turns debug level on or off for subsystem tag.
	SetTagDebug(tag string, on bool)
}

// coreLogCategories are Core's logging categories (its LogCategoriesList,
// without "lock", which only exists in builds with DEBUG_LOCKCONTENTION),
// each with the descwallet subsystems it switches; nil for the ones
// descwallet has no counterpart of (accepted, reported, no effect).
var coreLogCategories = map[string][]string{
	"addrman": nil, "bench": nil, "blockstorage": nil, "cmpctblock": nil, "coindb": nil,
	"estimatefee": nil, "http": nil, "i2p": nil, "ipc": nil, "kernel": nil, "leveldb": nil,
	"libevent": nil, "mempool": nil, "mempoolrej": nil, "net": nil, "proxy": nil, "prune": nil,
	"qt": nil, "rand": nil, "reindex": nil,
	"rpc":         {"RPCS"},
	"scan":        {"SCAN", "DESC"},
	"selectcoins": nil, "tor": nil, "txpackages": nil, "txreconciliation": nil, "validation": nil,
	"walletdb": {"STOR", "WLLT"},
	"zmq":      nil,
}

// allLogTags are every subsystem the "all" category switches.
var allLogTags = []string{"RPCS", "WLLT", "DESC", "SCAN", "STOR", "NODE"}

// logState is the logging call's view of the categories: the mapped ones
// read the subsystems' levels; the others are remembered here.
type logState struct {
	d      *Deps
	mu     sync.Mutex
	others map[string]bool
}

// init sets the unmapped categories the first time: on when the node
// started with every subsystem at debug (-debug=1), as Core's -debug=1
// turns every category on.
func (s *logState) init() {
	if s.others != nil {
		return
	}
	s.others = map[string]bool{}
	all := s.d.Logging != nil
	for _, t := range allLogTags {
		all = all && s.d.Logging.IsDebug(t)
	}
	for c, tags := range coreLogCategories {
		if tags == nil {
			s.others[c] = all
		}
	}
}

func (s *logState) set(cat string, on bool) {
	tags := coreLogCategories[cat]
	if tags == nil {
		s.others[cat] = on
		return
	}
	if s.d.Logging != nil {
		for _, t := range tags {
			s.d.Logging.SetTagDebug(t, on)
		}
	}
}

func (s *logState) setAll(on bool) {
	for c := range coreLogCategories {
		s.set(c, on)
	}
	if s.d.Logging != nil {
		for _, t := range allLogTags {
			s.d.Logging.SetTagDebug(t, on)
		}
	}
}

func (s *logState) get(cat string) bool {
	tags := coreLogCategories[cat]
	if tags == nil {
		return s.others[cat]
	}
	if s.d.Logging == nil {
		return false
	}
	for _, t := range tags {
		if !s.d.Logging.IsDebug(t) {
			return false
		}
	}
	return true
}

// apply turns on or off each category of the array raw in order, as Core
// does: "", "1" and "all" mean every category; an unknown one fails the
// call with the earlier ones already applied.
func (s *logState) apply(raw json.RawMessage, on bool) error {
	elems, ok := rpc.Elements(raw)
	if !ok {
		return rpc.TypeError(rpc.JSONType(raw), "array")
	}
	for _, e := range elems {
		c, err := rpc.AsString(e)
		if err != nil {
			return err
		}
		switch {
		case c == "" || c == "1" || c == "all":
			s.setAll(on)
		case hasKey(c):
			s.set(c, on)
		default:
			return rpc.NewError(rpc.CodeInvalidParameter, "unknown logging category "+c)
		}
	}
	return nil
}

func hasKey(c string) bool {
	_, ok := coreLogCategories[c]
	return ok
}

// newLogging returns the logging method.
func newLogging(d *Deps) *rpc.Method {
	s := &logState{d: d}
	cats := make([]string, 0, len(coreLogCategories))
	for c := range coreLogCategories {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	return &rpc.Method{
		Name:     "logging",
		Category: "control",
		Description: "Shows Core's debug logging categories and whether each is on; with arguments, first turns on those of " +
			"\"include\", then turns off those of \"exclude\" (a category in both ends up off).\n" +
			"The categories are Core's: " + strings.Join(cats, ", ") + "; \"all\" and \"1\" stand for every one.\n" +
			"They switch descwallet's -debug subsystems where there is one: rpc the RPC calls (rpc), scan the chain scans and " +
			"descriptor expansions (scan, descriptor), walletdb the wallet and its store (wallet, store); \"all\" switches every " +
			"subsystem, node included. The other categories are accepted and shown but change nothing.",
		Params: []rpc.Param{
			{Name: "include", Type: rpc.TypeArray, Optional: true, Description: "The categories to turn on.",
				Fields: []rpc.Param{{Name: "include_category", Type: rpc.TypeString, Optional: true}}},
			{Name: "exclude", Type: rpc.TypeArray, Optional: true, Description: "The categories to turn off.",
				Fields: []rpc.Param{{Name: "exclude_category", Type: rpc.TypeString, Optional: true}}},
		},
		Result:   "{\n  \"category\" : true|false,  (boolean) Whether the category is logged at debug level\n  ...\n}",
		Examples: []string{`'["all"]' '["http"]'`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.init()
			if rpc.JSONType(req.Arg(0)) == "array" {
				if err := s.apply(req.Arg(0), true); err != nil {
					return nil, err
				}
			}
			if rpc.JSONType(req.Arg(1)) == "array" {
				if err := s.apply(req.Arg(1), false); err != nil {
					return nil, err
				}
			}
			// A map marshals with its keys sorted: Core's order.
			out := make(map[string]bool, len(coreLogCategories))
			for c := range coreLogCategories {
				out[c] = s.get(c)
			}
			return out, nil
		},
	}
}
