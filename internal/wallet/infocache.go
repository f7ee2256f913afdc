package wallet

import (
	"bytes"
	"encoding/json"
	"sync"
	"sync/atomic"
)

// genRWMutex is the wallet's state lock. Every write lock starts a new
// generation, so that anything computed from the state under a read lock
// can be kept and reused while the generation it was computed in lasts.
type genRWMutex struct {
	sync.RWMutex
	gen atomic.Uint64
}

// Lock takes the lock for writing and starts a new generation.
func (m *genRWMutex) Lock() {
	m.RWMutex.Lock()
	m.gen.Add(1)
}

// infoCacheSize bounds the number of getaddressinfo replies kept.
const infoCacheSize = 1 << 14

// infoCache keeps the JSON of recent getaddressinfo replies by
// scriptPubKey, each with the state generation it was computed in.
type infoCache struct {
	mu sync.RWMutex
	m  map[string]infoEntry
}

type infoEntry struct {
	gen  uint64
	json []byte
}

func (c *infoCache) get(spk []byte, gen uint64) ([]byte, bool) {
	c.mu.RLock()
	e, ok := c.m[string(spk)]
	c.mu.RUnlock()
	if !ok || e.gen != gen {
		return nil, false
	}
	return e.json, true
}

func (c *infoCache) put(spk []byte, gen uint64, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= infoCacheSize {
		c.m = make(map[string]infoEntry, 256)
	}
	c.m[string(spk)] = infoEntry{gen: gen, json: b}
}

// AddressInfoJSON is AddressInfo encoded as JSON (no HTML escaping, no
// trailing newline), passed through finish when it is not nil (the caller's
// output form). Replies are kept until the wallet's state changes, so that
// repeated questions about the same scripts cost a map lookup; finish must
// therefore always be the same transformation. The returned slice must not
// be modified.
func (w *Wallet) AddressInfoJSON(spk []byte, finish func([]byte) ([]byte, error)) ([]byte, error) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	gen := w.mu.gen.Load()
	if b, ok := w.infos.get(spk, gen); ok {
		return b, nil
	}
	info := w.addressInfoLocked(spk)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&info); err != nil {
		return nil, err
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	if finish != nil {
		var err error
		if b, err = finish(b); err != nil {
			return nil, err
		}
	}
	w.infos.put(spk, gen, b)
	return b, nil
}
