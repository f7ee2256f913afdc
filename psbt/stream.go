package psbt

import (
	"encoding/binary"
)

// maxSize is Core's MAX_SIZE: the largest length a compact size may announce.
const maxSize = 0x02000000

// failure is a decoding failure carrying the text Core's exception would
// carry. It travels by panic inside one Decode call and is turned into an
// *Error by Decode's recover; nothing else is recovered.
type failure struct{ msg string }

func fail(msg string) { panic(failure{msg}) }

// stream reads bytes the way Core's DataStream (or, for keys, SpanReader)
// does: a read past the end fails with that class's message.
type stream struct {
	b      []byte
	off    int
	eofMsg string
}

func newStream(b []byte) *stream {
	return &stream{b: b, eofMsg: "DataStream::read(): end of data"}
}

func newKeyStream(b []byte) *stream {
	return &stream{b: b, eofMsg: "SpanReader::read(): end of data"}
}

func (s *stream) remaining() int { return len(s.b) - s.off }
func (s *stream) empty() bool    { return s.off >= len(s.b) }

func (s *stream) take(n int) []byte {
	if n < 0 || n > s.remaining() {
		fail(s.eofMsg)
	}
	out := s.b[s.off : s.off+n]
	s.off += n
	return out
}

func (s *stream) u8() byte { return s.take(1)[0] }

func (s *stream) u16() uint16 { return binary.LittleEndian.Uint16(s.take(2)) }

func (s *stream) u32() uint32 { return binary.LittleEndian.Uint32(s.take(4)) }

func (s *stream) u64() uint64 { return binary.LittleEndian.Uint64(s.take(8)) }

// compactSize is Core's ReadCompactSize with its range check.
func (s *stream) compactSize() uint64 {
	var n uint64
	switch c := s.u8(); c {
	case 0xfd:
		n = uint64(s.u16())
		if n < 253 {
			fail("non-canonical ReadCompactSize()")
		}
	case 0xfe:
		n = uint64(s.u32())
		if n < 0x10000 {
			fail("non-canonical ReadCompactSize()")
		}
	case 0xff:
		n = s.u64()
		if n < 0x100000000 {
			fail("non-canonical ReadCompactSize()")
		}
	default:
		n = uint64(c)
	}
	if n > maxSize {
		fail("ReadCompactSize(): size too large")
	}
	return n
}

// bytes reads a compact-size prefixed byte vector, copied.
func (s *stream) bytes() []byte {
	n := s.compactSize()
	b := s.take(int(n))
	return append([]byte(nil), b...)
}

// count reads a compact size that announces a number of elements. The
// elements are read one at a time, so memory follows the bytes present,
// never the announced count.
func (s *stream) count() int { return int(s.compactSize()) }

// writer builds Core's serialization.
type writer struct{ b []byte }

func (w *writer) u8(v byte)      { w.b = append(w.b, v) }
func (w *writer) u32(v uint32)   { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) u64(v uint64)   { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *writer) raw(b []byte)   { w.b = append(w.b, b...) }
func (w *writer) bytes(b []byte) { w.compactSize(uint64(len(b))); w.b = append(w.b, b...) }

func (w *writer) compactSize(n uint64) {
	switch {
	case n < 253:
		w.b = append(w.b, byte(n))
	case n <= 0xffff:
		w.b = append(w.b, 0xfd)
		w.b = binary.LittleEndian.AppendUint16(w.b, uint16(n))
	case n <= 0xffffffff:
		w.b = append(w.b, 0xfe)
		w.b = binary.LittleEndian.AppendUint32(w.b, uint32(n))
	default:
		w.b = append(w.b, 0xff)
		w.b = binary.LittleEndian.AppendUint64(w.b, n)
	}
}

// pair writes a key-value pair: the key and the value, each length prefixed.
func (w *writer) pair(key, value []byte) {
	w.bytes(key)
	w.bytes(value)
}

// typeKey returns the key made of the compact-size type followed by data.
func typeKey(t uint64, data ...[]byte) []byte {
	var k writer
	k.compactSize(t)
	for _, d := range data {
		k.raw(d)
	}
	return k.b
}
