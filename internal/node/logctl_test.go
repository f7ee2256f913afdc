package node

import (
	"log/slog"
	"path/filepath"
	"testing"
)

// TestLogsTagDebug: the logging call's switches act on the subsystems'
// levels that -debug set, and a logger made before the switch follows it.
func TestLogsTagDebug(t *testing.T) {
	l, err := OpenLogs(filepath.Join(t.TempDir(), "debug.log"), false, []string{"rpc"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.IsDebug(SubRPC) || l.IsDebug(SubScan) || l.IsDebug("NOPE") {
		t.Fatal("levels after -debug=rpc")
	}
	scan := l.Logger(SubScan)
	l.SetTagDebug(SubScan, true)
	l.SetTagDebug(SubRPC, false)
	l.SetTagDebug("NOPE", true)
	if l.IsDebug(SubRPC) || !l.IsDebug(SubScan) || l.IsDebug("NOPE") {
		t.Fatal("levels after the switches")
	}
	if !scan.Enabled(t.Context(), slog.LevelDebug) {
		t.Error("the scan logger does not log debug lines")
	}
}
