package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// validJSON reports whether b is one JSON value.
func validJSON(b []byte) bool { return json.Valid(b) }

// TestFormatResult checks bitcoin-cli's way of printing results.
func TestFormatResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply string
		want  string
		print bool
	}{
		{"null prints nothing", `null`, "", false},
		{"string bare", `"hello \"x\"\n"`, "hello \"x\"\n", true},
		{"empty string", `""`, "", true},
		{"number as written", `1.10`, "1.10", true},
		{"big number", `12345678901234567890`, "12345678901234567890", true},
		{"bool", `true`, "true", true},
		{"empty array", `[]`, "[\n]", true},
		{"empty object", `{}`, "{\n}", true},
		{"array", `[1,"a",null]`, "[\n  1,\n  \"a\",\n  null\n]", true},
		{"nested", `{"b":1,"a":[{"x":[]},{}],"c":{"d":"e"}}`,
			"{\n  \"b\": 1,\n  \"a\": [\n    {\n      \"x\": [\n      ]\n    },\n    {\n    }\n  ],\n  \"c\": {\n    \"d\": \"e\"\n  }\n}", true},
		{"escapes", `["a\"b\\c/d\u0001\u007f\t\u00e9<>&"]`,
			"[\n  \"a\\\"b\\\\c/d\\u0001\\u007f\\t\u00e9<>&\"\n]", true},
		{"amount", `{"amount":0.10000000}`, "{\n  \"amount\": 0.10000000\n}", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := decodeValue([]byte(tt.reply))
			if err != nil {
				t.Fatal(err)
			}
			got, print := formatResult(v)
			if got != tt.want || print != tt.print {
				t.Fatalf("got %q (%v), want %q (%v)", got, print, tt.want, tt.print)
			}
		})
	}
}

// TestFormatError checks the error lines and the exit status.
func TestFormatError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		err    string
		want   string
		status int
	}{
		{"method not found", `{"code":-32601,"message":"Method not found"}`,
			"error code: -32601\nerror message:\nMethod not found", 32601},
		{"multi-line message", `{"code":-1,"message":"echo \"x\"\n\nArguments:"}`,
			"error code: -1\nerror message:\necho \"x\"\n\nArguments:", 1},
		{"wallet not specified", `{"code":-19,"message":"Multiple wallets"}`,
			"error code: -19\nerror message:\nMultiple wallets\nTry adding \"-rpcwallet=<filename>\" option to descwallet-cli command line.", 19},
		{"no message", `{"code":-8}`, "error code: -8\n", 8},
		{"not an object", `"boom"`, `error: "boom"`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := decodeValue([]byte(tt.err))
			if err != nil {
				t.Fatal(err)
			}
			got, status := formatError(v)
			if got != tt.want || status != tt.status {
				t.Fatalf("got %q status %d, want %q status %d", got, status, tt.want, tt.status)
			}
		})
	}
}

// TestDecodeValue checks that bad replies are refused and key order kept.
func TestDecodeValue(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{``, `{`, `{"a":1} x`, `[1,]`, strings.Repeat("[", 600) + strings.Repeat("]", 600)} {
		if _, err := decodeValue([]byte(bad)); err == nil {
			t.Errorf("%.20q: accepted", bad)
		}
	}
	v, err := decodeValue([]byte(`{"z":1,"a":2,"m":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(v.(*object).keys, ","); got != "z,a,m" {
		t.Fatalf("key order %s", got)
	}
}
