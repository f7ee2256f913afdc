package node

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Subsystem tags of the node's loggers.
const (
	SubRPC        = "RPCS"
	SubWallet     = "WLLT"
	SubDescriptor = "DESC"
	SubScan       = "SCAN"
	SubStore      = "STOR"
	SubNode       = "NODE"
)

// subsystems maps -debug words to tags.
var subsystems = map[string]string{
	"rpc": SubRPC, "rpcs": SubRPC,
	"wallet": SubWallet, "wllt": SubWallet,
	"descriptor": SubDescriptor, "desc": SubDescriptor,
	"scan": SubScan, "chain": SubScan,
	"store": SubStore, "stor": SubStore,
	"node": SubNode,
}

// Logs is the registry of subsystem loggers. Every logger writes to the
// debug log file and, with -printtoconsole, to standard output; each
// subsystem has its own level (info by default, debug with -debug).
type Logs struct {
	mu     sync.Mutex
	out    io.Writer
	file   *os.File
	levels map[string]*slog.LevelVar
	path   string
}

// OpenLogs opens (appending) the log file at path and sets levels from the
// -debug values. console adds standard output.
func OpenLogs(path string, console bool, debug []string) (*Logs, error) {
	l := &Logs{levels: map[string]*slog.LevelVar{}, path: path}
	for _, tag := range []string{SubRPC, SubWallet, SubDescriptor, SubScan, SubStore, SubNode} {
		l.levels[tag] = new(slog.LevelVar)
	}
	if err := l.SetDebug(debug); err != nil {
		return nil, err
	}
	var outs []io.Writer
	if path != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		l.file = f
		outs = append(outs, f)
	}
	if console {
		outs = append(outs, os.Stdout)
	}
	l.out = io.MultiWriter(outs...)
	return l, nil
}

// SetDebug applies -debug values: "", "1" or "all" turn on debug for every
// subsystem, "0" or "none" turn it off, a subsystem name turns it on for
// that one.
func (l *Logs) SetDebug(values []string) error {
	for _, v := range values {
		switch w := strings.ToLower(strings.TrimSpace(v)); w {
		case "", "1", "all", "true":
			for _, lv := range l.levels {
				lv.Set(slog.LevelDebug)
			}
		case "0", "none", "false":
			for _, lv := range l.levels {
				lv.Set(slog.LevelInfo)
			}
		default:
			tag, ok := subsystems[w]
			if !ok {
				return fmt.Errorf("unsupported logging category -debug=%s", v)
			}
			l.levels[tag].Set(slog.LevelDebug)
		}
	}
	return nil
}

// IsDebug reports whether subsystem tag logs at debug level.
func (l *Logs) IsDebug(tag string) bool {
	l.mu.Lock()
	lv, ok := l.levels[tag]
	l.mu.Unlock()
	return ok && lv.Level() <= slog.LevelDebug
}

// SetTagDebug turns debug level on or off for subsystem tag (the logging
// call).
func (l *Logs) SetTagDebug(tag string, on bool) {
	l.mu.Lock()
	lv, ok := l.levels[tag]
	l.mu.Unlock()
	if !ok {
		return
	}
	if on {
		lv.Set(slog.LevelDebug)
	} else {
		lv.Set(slog.LevelInfo)
	}
}

// Path returns the log file path.
func (l *Logs) Path() string { return l.path }

// Logger returns the logger of a subsystem tag.
func (l *Logs) Logger(tag string) *slog.Logger {
	lv, ok := l.levels[tag]
	if !ok {
		lv = new(slog.LevelVar)
		l.levels[tag] = lv
	}
	return slog.New(&logHandler{logs: l, tag: tag, level: lv})
}

// Close closes the log file.
func (l *Logs) Close() error {
	if l.file != nil {
		return l.file.Close()
	}
	return nil
}

// logHandler writes "2006-01-02T15:04:05.000Z LEVEL [TAG] message k=v ...".
type logHandler struct {
	logs   *Logs
	tag    string
	level  *slog.LevelVar
	attrs  []byte
	prefix string
}

func (h *logHandler) Enabled(_ context.Context, lv slog.Level) bool {
	return lv >= h.level.Level()
}

func (h *logHandler) Handle(_ context.Context, r slog.Record) error {
	buf := make([]byte, 0, 160)
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	buf = t.UTC().AppendFormat(buf, "2006-01-02T15:04:05.000Z")
	buf = append(buf, ' ')
	buf = append(buf, r.Level.String()...)
	buf = append(buf, " ["...)
	buf = append(buf, h.tag...)
	buf = append(buf, "] "...)
	buf = append(buf, r.Message...)
	buf = append(buf, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		buf = appendAttr(buf, h.prefix, a)
		return true
	})
	buf = append(buf, '\n')
	h.logs.mu.Lock()
	defer h.logs.mu.Unlock()
	_, err := h.logs.out.Write(buf)
	return err
}

func appendAttr(buf []byte, prefix string, a slog.Attr) []byte {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return buf
	}
	if a.Value.Kind() == slog.KindGroup {
		for _, g := range a.Value.Group() {
			buf = appendAttr(buf, prefix+a.Key+".", g)
		}
		return buf
	}
	buf = append(buf, ' ')
	buf = append(buf, prefix...)
	buf = append(buf, a.Key...)
	buf = append(buf, '=')
	s := a.Value.String()
	if s == "" || strings.ContainsAny(s, " \t\n\"=") {
		buf = strconv.AppendQuote(buf, s)
	} else {
		buf = append(buf, s...)
	}
	return buf
}

func (h *logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append([]byte(nil), h.attrs...)
	for _, a := range as {
		n.attrs = appendAttr(n.attrs, h.prefix, a)
	}
	return &n
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	n := *h
	n.prefix = h.prefix + name + "."
	return &n
}
