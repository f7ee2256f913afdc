package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// storeRates are the rates addrinfo measured on one store.
type storeRates struct {
	store      string
	info, echo float64
}

// printStoreRates prints each store's getaddressinfo and echo rates with
// getaddressinfo's ratio to echo, and, when both stores ran, PostgreSQL's
// ratio to SQLite for each call.
func printStoreRates(w io.Writer, rates []storeRates) {
	var sqlite, pg *storeRates
	for i := range rates {
		r := &rates[i]
		fmt.Fprintf(w, "%-8s getaddressinfo %10.0f req/s   echo %10.0f req/s   getaddressinfo / echo %s\n",
			r.store, r.info, r.echo, ratio(r.info, r.echo))
		switch r.store {
		case storeSQLite:
			sqlite = r
		case storePostgres:
			pg = r
		}
	}
	if sqlite != nil && pg != nil {
		fmt.Fprintf(w, "postgres / sqlite: getaddressinfo %s, echo %s\n", ratio(pg.info, sqlite.info),
			ratio(pg.echo, sqlite.echo))
	}
}

// printMedianRatio prints the median over rounds of PostgreSQL's
// getaddressinfo and echo rates over SQLite's, when both stores ran.
func printMedianRatio(w io.Writer, rounds [][]storeRates) {
	var info, echo []float64
	for _, rates := range rounds {
		var sqlite, pg *storeRates
		for i := range rates {
			switch rates[i].store {
			case storeSQLite:
				sqlite = &rates[i]
			case storePostgres:
				pg = &rates[i]
			}
		}
		if sqlite == nil || pg == nil || !(sqlite.info > 0) || !(sqlite.echo > 0) {
			continue
		}
		info = append(info, pg.info/sqlite.info)
		echo = append(echo, pg.echo/sqlite.echo)
	}
	if len(info) == 0 {
		return
	}
	fmt.Fprintf(w, "postgres / sqlite, median of %d rounds: getaddressinfo %s, echo %s\n", len(info),
		ratio(median(info), 1), ratio(median(echo), 1))
}

// median returns the median of xs (the mean of the middle two for an even
// count); xs is sorted in place.
func median(xs []float64) float64 {
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// ratio formats a/b as "1.23x", or "n/a" when b is not positive.
func ratio(a, b float64) string {
	if !(b > 0) {
		return "n/a"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64) + "x"
}

// peakRSS returns the peak resident set size of process pid in bytes, from
// VmHWM in /proc/<pid>/status.
func peakRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseVmHWM(f)
}

// parseVmHWM reads the VmHWM line ("VmHWM:   123456 kB") of a
// /proc/<pid>/status file and returns it in bytes.
func parseVmHWM(r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("unexpected VmHWM line %q", sc.Text())
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb < 0 {
			return 0, fmt.Errorf("unexpected VmHWM line %q", sc.Text())
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no VmHWM line")
}

// mib formats a byte count in MiB.
func mib(n int64) string {
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 0, 64) + " MiB"
}
