package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseStores(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"sqlite", []string{"sqlite"}},
		{"SQLite", []string{"sqlite"}},
		{"postgres", []string{"postgres"}},
		{"pg", []string{"postgres"}},
		{"postgresql", []string{"postgres"}},
		{"both", []string{"sqlite", "postgres"}},
	} {
		got, err := parseStores(tc.in)
		if err != nil || strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("parseStores(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "mysql", "sqlite,postgres"} {
		if got, err := parseStores(bad); err == nil {
			t.Errorf("parseStores(%q) = %v, want an error", bad, got)
		}
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		a, b float64
		want string
	}{
		{3, 2, "1.50x"},
		{1, 3, "0.33x"},
		{0, 5, "0.00x"},
		{5, 0, "n/a"},
		{5, -1, "n/a"},
	} {
		if got := ratio(tc.a, tc.b); got != tc.want {
			t.Errorf("ratio(%v, %v) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestPrintStoreRates(t *testing.T) {
	var buf bytes.Buffer
	printStoreRates(&buf, []storeRates{{store: "sqlite", info: 20000, echo: 40000},
		{store: "postgres", info: 5000, echo: 40000}})
	out := buf.String()
	for _, want := range []string{
		"sqlite   getaddressinfo      20000 req/s   echo      40000 req/s   getaddressinfo / echo 0.50x\n",
		"postgres getaddressinfo       5000 req/s   echo      40000 req/s   getaddressinfo / echo 0.12x\n",
		"postgres / sqlite: getaddressinfo 0.25x, echo 1.00x\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// One store: no cross-store line.
	buf.Reset()
	printStoreRates(&buf, []storeRates{{store: "postgres", info: 1, echo: 2}})
	if strings.Contains(buf.String(), "postgres / sqlite") {
		t.Errorf("a single store printed a ratio between stores:\n%s", buf.String())
	}
}

func TestParseVmHWM(t *testing.T) {
	status := "Name:\tdescwalletd\nVmPeak:\t 1000 kB\nVmHWM:\t   123456 kB\nVmRSS:\t 100 kB\n"
	got, err := parseVmHWM(strings.NewReader(status))
	if err != nil || got != 123456*1024 {
		t.Fatalf("parseVmHWM = %d, %v; want %d", got, err, 123456*1024)
	}
	for _, bad := range []string{"Name:\tx\n", "VmHWM:\t12 MB\n", "VmHWM:\tx kB\n", "VmHWM:\n"} {
		if n, err := parseVmHWM(strings.NewReader(bad)); err == nil {
			t.Errorf("parseVmHWM(%q) = %d, want an error", bad, n)
		}
	}
}

func TestMiB(t *testing.T) {
	if got := mib(300 << 20); got != "300 MiB" {
		t.Errorf("mib = %q", got)
	}
}

func TestPrintMedianRatio(t *testing.T) {
	round := func(sqlite, pg float64) []storeRates {
		return []storeRates{{store: "sqlite", info: sqlite, echo: 100}, {store: "postgres", info: pg, echo: 50}}
	}
	var buf bytes.Buffer
	printMedianRatio(&buf, [][]storeRates{round(100, 10), round(100, 90), round(100, 30)})
	if want := "postgres / sqlite, median of 3 rounds: getaddressinfo 0.30x, echo 0.50x\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	buf.Reset()
	printMedianRatio(&buf, [][]storeRates{round(100, 10), round(100, 30)})
	if want := "postgres / sqlite, median of 2 rounds: getaddressinfo 0.20x, echo 0.50x\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	buf.Reset()
	printMedianRatio(&buf, [][]storeRates{{{store: "sqlite", info: 1, echo: 1}}})
	if buf.Len() != 0 {
		t.Errorf("one store printed %q", buf.String())
	}
}

func TestStoreArgs(t *testing.T) {
	st := &stores{dsn: "postgres://u@h/db"}
	if args, err := st.args(storeSQLite); err != nil || len(args) != 0 {
		t.Errorf("sqlite args %q, %v", args, err)
	}
	if args, err := st.args(storePostgres); err != nil || strings.Join(args, " ") != "-walletdb=postgres://u@h/db" {
		t.Errorf("postgres args %q, %v", args, err)
	}
	st.shared = true
	if args, err := st.args(storePostgres); err != nil ||
		strings.Join(args, " ") != "-walletdb=postgres://u@h/db -walletdbshared=1" {
		t.Errorf("shared postgres args %q, %v", args, err)
	}
}
