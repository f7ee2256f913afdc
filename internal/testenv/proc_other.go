//go:build !linux

package testenv

import "os/exec"

// configureChild leaves the command as it is where the kernel cannot tie a
// child's life to its parent's.
func configureChild(cmd *exec.Cmd) {}
