package wallet

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/safego"
)

// OutputType is Core's name of an address type: "legacy", "p2sh-segwit",
// "bech32" or "bech32m".
type OutputType string

// The output types.
const (
	Legacy     OutputType = "legacy"
	P2SHSegwit OutputType = "p2sh-segwit"
	Bech32     OutputType = "bech32"
	Bech32m    OutputType = "bech32m"
)

// ParseOutputType reads an address type name (case-sensitive, as Core).
func ParseOutputType(s string) (OutputType, bool) {
	switch OutputType(s) {
	case Legacy, P2SHSegwit, Bech32, Bech32m:
		return OutputType(s), true
	}
	return "", false
}

// chunkIndexes is the number of derivation indexes per stored chunk of
// script digests.
const chunkIndexes = 4096

// walletDesc is one descriptor of the wallet with its in-memory state.
type walletDesc struct {
	slot       uint32
	rec        DescriptorRecord
	d          *descriptor.Descriptor // with the private keys the wallet has
	cache      *descriptor.Cache
	outputType OutputType
	perIndex   int    // scriptPubKeys per index
	normalized string // listdescriptors' public form
	expansions expansionCache
}

// expand returns the outputs of the descriptor at index, from the
// expansion cache when it has them.
func (wd *walletDesc) expand(index uint32) ([]descriptor.Output, error) {
	key := uint64(index)
	if o, ok := wd.expansions.get(key); ok {
		return o, nil
	}
	o, err := wd.d.Expand(index, wd.cache)
	if err != nil {
		return nil, err
	}
	wd.expansions.put(key, o)
	return o, nil
}

// addKeyRecord files a plain private-key record (a 20-byte key id, the
// 32-byte key and a compression byte) in keys under its descriptor. A record
// of another shape is skipped; the record's bytes are copied, so the caller
// may wipe them afterwards.
func addKeyRecord(keys map[[32]byte]descriptor.KeyMap, r SecretRecord) {
	if len(r.KeyID) != 20 || len(r.Secret) != 33 {
		return
	}
	m := keys[r.DescriptorID]
	if m == nil {
		m = descriptor.KeyMap{}
		keys[r.DescriptorID] = m
	}
	var id descriptor.KeyID
	copy(id[:], r.KeyID)
	var pk descriptor.PrivateKey
	copy(pk.Key[:], r.Secret[:32])
	pk.Compressed = r.Secret[32] == 1
	m[id] = pk
}

// restore rebuilds the wallet from a database snapshot.
func (w *Wallet) restore(snap *Snapshot) error {
	if v, ok := snap.Meta[metaFlags]; ok && len(v) == 8 {
		w.flags = binary.BigEndian.Uint64(v)
	} else {
		return walletErr(ErrWallet, "Wallet file verification failed. Data is not in recognized format.")
	}
	w.chain.loadedFrom = decodeRescanFrom(snap.Meta[metaRescanFrom])
	w.chain.followDepths = string(snap.Meta[metaEventDepths])
	secrets := map[[32]byte]descriptor.KeyMap{}
	privStrings := map[[32]byte]string{}
	for _, s := range w.plainSecrets(snap) {
		if string(s.KeyID) == privateDescriptorKeyID {
			privStrings[s.DescriptorID] = string(s.Secret)
			continue
		}
		addKeyRecord(secrets, s)
	}
	for _, rec := range snap.Descriptors {
		text := rec.Public
		ps, private := privStrings[rec.ID]
		if private {
			// The private form keeps what the public one loses (the
			// parity of keys written x-only).
			text = ps
		}
		d, err := descriptor.Parse(text, w.cfg.Net)
		if err != nil {
			if private {
				// The parser's message may quote the private
				// descriptor: neither it nor the error goes any further.
				return walletErr(ErrWallet, "Wallet file verification failed. A stored private descriptor does not parse.")
			}
			return &Error{Kind: ErrWallet, Err: err, Description: "Wallet file verification failed. Descriptor does not parse: " + err.Error()}
		}
		if keys := secrets[rec.ID]; len(keys) > 0 {
			d = d.WithPrivateKeys(keys)
		}
		cache := descriptor.NewCache()
		if len(rec.Cache) > 0 {
			if err := cache.UnmarshalBinary(rec.Cache); err != nil {
				return &Error{Kind: ErrWallet, Err: err, Description: "Wallet file verification failed. Bad descriptor cache."}
			}
		}
		wd := &walletDesc{slot: uint32(len(w.descs)), rec: rec, d: d, cache: cache,
			outputType: OutputType(d.OutputType())}
		if err := wd.prepare(); err != nil {
			return err
		}
		w.descs = append(w.descs, wd)
		w.byID[rec.ID] = wd
	}
	if x, ok := w.index.(*spkIndex); ok {
		total := 0
		for _, c := range snap.Chunks {
			total += len(c.Data) / 8
		}
		x.grow(total)
		for _, c := range snap.Chunks {
			wd := w.byID[c.DescriptorID]
			if wd == nil || wd.perIndex == 0 {
				continue
			}
			n := len(c.Data) / 8
			for i := 0; i < n; i++ {
				h := binary.LittleEndian.Uint64(c.Data[i*8:])
				x.add(h, wd.slot, uint32(c.FirstIndex+int64(i/wd.perIndex)))
			}
		}
	}
	for _, a := range snap.Active {
		if wd := w.byID[a.DescriptorID]; wd != nil {
			w.active[activeKey{OutputType(a.OutputType), a.Internal}] = wd
		}
	}
	for _, l := range snap.Labels {
		w.book[string(l.Script)] = &bookEntry{label: l.Label, purpose: l.Purpose}
	}
	w.restoreLocks(snap)
	return nil
}

// prepare computes what the wallet keeps beside a descriptor: the number of
// scripts per index and the normalized string.
func (wd *walletDesc) prepare() error {
	first := uint32(0)
	if wd.rec.Ranged {
		first = uint32(wd.rec.RangeStart)
	}
	outs, err := wd.d.Expand(first, wd.cache)
	if err != nil {
		return &Error{Kind: ErrWallet, Err: err, Description: "Cannot expand descriptor. Probably because of hardened derivations without private keys provided"}
	}
	wd.perIndex = len(outs)
	if s, err := wd.d.NormalizedString(wd.cache); err == nil {
		wd.normalized = s
	} else {
		wd.normalized = wd.d.Public().String()
	}
	return nil
}

// derived is the result of deriving a block of indexes: their digests in
// index order, perIndex per index.
type derived struct {
	first  int64
	count  int64
	digest []uint64
}

// deriveDigests derives indexes [start, end) of d and returns the script
// digests, in blocks of chunkIndexes aligned on first. It works in batches
// spread over GOMAXPROCS goroutines so that memory stays proportional to
// the batch, not the range.
func deriveDigests(ctx context.Context, d *descriptor.Descriptor, cache *descriptor.Cache, start, end int64, perIndex int) ([]derived, error) {
	if end <= start {
		return nil, nil
	}
	var blocks []derived
	for lo := start; lo < end; lo += chunkIndexes {
		hi := lo + chunkIndexes
		if hi > end {
			hi = end
		}
		blocks = append(blocks, derived{first: lo, count: hi - lo})
	}
	workers := runtime.GOMAXPROCS(0)
	if workers > len(blocks) {
		workers = len(blocks)
	}
	var (
		g        safego.Group
		mu       sync.Mutex
		firstErr error
		next     int
	)
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil || next >= len(blocks) || g.Failed() {
			return -1
		}
		next++
		return next - 1
	}
	for wk := 0; wk < workers; wk++ {
		g.Go("descriptor import expansion", func() error {
			for {
				b := take()
				if b < 0 {
					return nil
				}
				if err := ctx.Err(); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return nil
				}
				blk := &blocks[b]
				if err := deriveBlock(ctx, d, cache, blk, perIndex); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return nil
				}
			}
		})
	}
	if err := g.Wait(); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return blocks, nil
}

// deriveBlock fills blk.digest with the script digests of its indexes.
func deriveBlock(ctx context.Context, d *descriptor.Descriptor, cache *descriptor.Cache, blk *derived, perIndex int) error {
	blk.digest = make([]uint64, 0, blk.count*int64(perIndex))
	last := uint32(blk.first + blk.count - 1)
	return d.ForEachScript(uint32(blk.first), last, cache, func(index uint32, scripts [][]byte) error {
		// A block of a many-key descriptor takes seconds: the caller's
		// end is noticed within it.
		if index%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if len(scripts) != perIndex {
			return fmt.Errorf("index %d has %d scripts, want %d", index, len(scripts), perIndex)
		}
		for _, s := range scripts {
			blk.digest = append(blk.digest, scriptDigest(s))
		}
		return nil
	})
}

// streamDigests derives indexes [start, end) of d in blocks of
// chunkIndexes aligned on start, as deriveDigests does, on GOMAXPROCS
// goroutines, and hands each block to emit (on the caller's goroutine, in
// no particular order) as it is ready: memory holds a few blocks whatever
// the range. The first error of a derivation or of emit ends it.
func streamDigests(ctx context.Context, d *descriptor.Descriptor, cache *descriptor.Cache, start, end int64, perIndex int,
	emit func(derived) error) error {
	if end <= start {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := runtime.GOMAXPROCS(0)
	out := make(chan derived, workers)
	var next atomic.Int64
	next.Store(start)
	var g safego.Group
	for wk := 0; wk < workers; wk++ {
		g.Go("descriptor range derivation", func() error {
			for {
				lo := next.Add(chunkIndexes) - chunkIndexes
				if lo >= end {
					return nil
				}
				blk := derived{first: lo, count: min(lo+chunkIndexes, end) - lo}
				if err := deriveBlock(ctx, d, cache, &blk, perIndex); err != nil {
					cancel()
					return err
				}
				select {
				case out <- blk:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		})
	}
	waited := safego.Go("descriptor range derivation", func() error {
		defer close(out)
		return g.Wait()
	})
	var emitErr error
	for blk := range out {
		if emitErr != nil {
			continue
		}
		if emitErr = emit(blk); emitErr != nil {
			cancel()
		}
	}
	werr := <-waited
	if emitErr != nil {
		return emitErr
	}
	return werr
}

// chunkRecord turns a derived block into a stored chunk.
func chunkRecord(id [32]byte, b derived) ChunkRecord {
	data := make([]byte, 8*len(b.digest))
	for i, h := range b.digest {
		binary.LittleEndian.PutUint64(data[i*8:], h)
	}
	return ChunkRecord{DescriptorID: id, Chunk: b.first, FirstIndex: b.first, Data: data}
}

// chunkRecords turns derived blocks into stored chunks.
func chunkRecords(id [32]byte, blocks []derived) []ChunkRecord {
	out := make([]ChunkRecord, 0, len(blocks))
	for _, b := range blocks {
		out = append(out, chunkRecord(id, b))
	}
	return out
}

// indexBlocks records derived blocks, stored already, in the script
// index. The caller holds w.mu for writing.
func (w *Wallet) indexBlocks(wd *walletDesc, blocks []derived) {
	w.index.indexed(wd, blocks)
}

// privateDescriptorKeyID names the secret record that holds a descriptor's
// private string.
const privateDescriptorKeyID = "private-descriptor"

// secretRecords returns the private keys of d as stored records, with its
// private string.
func secretRecords(id [32]byte, d *descriptor.Descriptor, keys descriptor.KeyMap) []SecretRecord {
	out := make([]SecretRecord, 0, len(keys)+1)
	if s, ok := d.PrivateString(); ok {
		out = append(out, SecretRecord{DescriptorID: id, KeyID: []byte(privateDescriptorKeyID), Secret: []byte(s)})
	}
	for kid, pk := range keys {
		sec := make([]byte, 33)
		copy(sec, pk.Key[:])
		if pk.Compressed {
			sec[32] = 1
		}
		out = append(out, SecretRecord{DescriptorID: id, KeyID: append([]byte(nil), kid[:]...), Secret: sec})
	}
	return out
}

// match is a descriptor index whose expansion holds a script.
type match struct {
	wd    *walletDesc
	index uint32
	out   descriptor.Output
}

// findScript returns every (descriptor, index) of the wallet that derives
// script, in import order. The caller holds w.mu.
func (w *Wallet) findScript(script []byte) []match {
	var buf [4]uint64
	refs := w.index.lookup(scriptDigest(script), buf[:0])
	var res []match
	for _, r := range refs {
		slot, index := unpackRef(r)
		if int(slot) >= len(w.descs) {
			continue
		}
		wd := w.descs[slot]
		outs, err := wd.expand(index)
		if err != nil {
			continue
		}
		for _, o := range outs {
			if bytes.Equal(o.ScriptPubKey, script) {
				res = append(res, match{wd: wd, index: index, out: o})
				break
			}
		}
	}
	if len(res) > 1 {
		// Keep import order whatever order the index returned.
		for i := 1; i < len(res); i++ {
			for j := i; j > 0 && res[j].wd.slot < res[j-1].wd.slot; j-- {
				res[j], res[j-1] = res[j-1], res[j]
			}
		}
	}
	return res
}

// IsMine reports whether some descriptor of the wallet derives script.
func (w *Wallet) IsMine(script []byte) bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return len(w.findScript(script)) > 0
}
