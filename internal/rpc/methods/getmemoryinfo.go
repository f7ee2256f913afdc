package methods

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/descwallet/descwallet/internal/rpc"
)

// lockedMemoryInfo is getmemoryinfo's "locked" object. Core reports its
// pool of locked (unswappable) memory for keys; descwallet locks no
// memory, so it reports the Go heap in the same shape.
type lockedMemoryInfo struct {
	Used       uint64 `json:"used"`
	Free       uint64 `json:"free"`
	Total      uint64 `json:"total"`
	Locked     uint64 `json:"locked"`
	ChunksUsed uint64 `json:"chunks_used"`
	ChunksFree uint64 `json:"chunks_free"`
}

type memoryStats struct {
	Locked lockedMemoryInfo `json:"locked"`
}

// newGetMemoryInfo returns the getmemoryinfo method.
func newGetMemoryInfo(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "getmemoryinfo",
		Category: "control",
		Description: "Reports the node's memory use, from the Go runtime's heap statistics in Core's shapes.\n" +
			"\"stats\": used is the bytes of live heap objects, total the heap memory held from the system, free the difference, " +
			"locked 0 (descwallet locks no memory against swapping), chunks_used the live heap objects, chunks_free 0.\n" +
			"\"mallocinfo\": an XML document in glibc's malloc_info layout: one heap, its live objects by size class, " +
			"the idle heap the process holds as one free block, and the process's memory from the system.",
		Params: []rpc.Param{
			{Name: "mode", Type: rpc.TypeString, Optional: true, Default: `"stats"`, Description: `"stats" or "mallocinfo".`},
		},
		Result: "{                       (mode \"stats\")\n  \"locked\" : {\n    \"used\" : n,\n    \"free\" : n,\n    \"total\" : n,\n" +
			"    \"locked\" : n,\n    \"chunks_used\" : n,\n    \"chunks_free\" : n\n  }\n}\n" +
			"\"str\"                   (mode \"mallocinfo\") \"<malloc version=\\\"1\\\">...\"",
		Examples: []string{"", `"mallocinfo"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			mode := "stats"
			if req.Has(0) {
				s, err := req.String(0)
				if err != nil {
					return nil, err
				}
				mode = s
			}
			switch mode {
			case "stats":
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				total := m.HeapSys - m.HeapReleased
				return memoryStats{Locked: lockedMemoryInfo{Used: m.HeapAlloc, Free: total - min(total, m.HeapAlloc),
					Total: total, ChunksUsed: m.HeapObjects}}, nil
			case "mallocinfo":
				return mallocInfo(), nil
			}
			return nil, rpc.NewError(rpc.CodeInvalidParameter, "unknown mode "+mode)
		},
	}
}

// mallocInfo writes the Go heap statistics in glibc's malloc_info layout.
func mallocInfo() string {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	var b strings.Builder
	b.WriteString("<malloc version=\"1\">\n<heap nr=\"0\">\n<sizes>\n")
	from := uint64(1)
	for _, c := range m.BySize {
		if c.Size == 0 {
			continue
		}
		n := c.Mallocs - min(c.Mallocs, c.Frees)
		if n > 0 {
			fmt.Fprintf(&b, "  <size from=\"%d\" to=\"%d\" total=\"%d\" count=\"%d\"/>\n", from, c.Size, n*uint64(c.Size), n)
		}
		from = uint64(c.Size) + 1
	}
	held := m.HeapSys - m.HeapReleased
	idle := m.HeapIdle - min(m.HeapIdle, m.HeapReleased)
	// The idle heap the process holds counts as one free block.
	blocks := 0
	if idle > 0 {
		blocks = 1
	}
	b.WriteString("</sizes>\n")
	fmt.Fprintf(&b, "<total type=\"fast\" count=\"0\" size=\"0\"/>\n<total type=\"rest\" count=\"%d\" size=\"%d\"/>\n", blocks, idle)
	fmt.Fprintf(&b, "<system type=\"current\" size=\"%d\"/>\n<system type=\"max\" size=\"%d\"/>\n", held, m.HeapSys)
	fmt.Fprintf(&b, "<aspace type=\"total\" size=\"%d\"/>\n<aspace type=\"mprotect\" size=\"%d\"/>\n</heap>\n", held, held)
	fmt.Fprintf(&b, "<total type=\"fast\" count=\"0\" size=\"0\"/>\n<total type=\"rest\" count=\"%d\" size=\"%d\"/>\n", blocks, idle)
	fmt.Fprintf(&b, "<total type=\"mmap\" count=\"0\" size=\"0\"/>\n")
	fmt.Fprintf(&b, "<system type=\"current\" size=\"%d\"/>\n<system type=\"max\" size=\"%d\"/>\n", m.Sys-m.HeapReleased, m.Sys)
	fmt.Fprintf(&b, "<aspace type=\"total\" size=\"%d\"/>\n<aspace type=\"mprotect\" size=\"%d\"/>\n</malloc>\n", m.Sys, m.Sys)
	return b.String()
}
