//go:build !unix

package atomicfile

// SyncDir is a no-op where folders cannot be synced.
func SyncDir(string) error { return nil }
