//go:build unix

package atomicfile

import "os"

// SyncDir makes the entries of the folder at path (a rename, a new file)
// durable.
func SyncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	serr := d.Sync()
	cerr := d.Close()
	if serr != nil {
		return serr
	}
	return cerr
}
