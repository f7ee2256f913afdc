package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMeasureBodies checks that every request of the list is sent, with
// the path and credentials given, and that a rate is reported.
func TestMeasureBodies(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/wallet/w" || r.Header.Get("Authorization") != "Basic x" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		mu.Lock()
		seen[string(body)]++
		mu.Unlock()
		w.Write([]byte(`{"result":null,"error":null,"id":1}`))
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	bodies := []string{`{"a":1}`, `{"b":2}`, `{"c":3}`}
	rate, err := measureBodies(addr, "/wallet/w", "Basic x", bodies, 2, 20*time.Millisecond, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if rate <= 0 {
		t.Errorf("rate %v, want > 0", rate)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, b := range bodies {
		if seen[b] == 0 {
			t.Errorf("request %s was never sent (seen %v)", b, seen)
		}
	}

	// A refused request is an error, not a rate.
	if _, err := measureBodies(addr, "/other", "Basic x", bodies, 1, 0, 20*time.Millisecond); err == nil {
		t.Error("a 401 reply was counted")
	}
}
