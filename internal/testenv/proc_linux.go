package testenv

import (
	"os/exec"
	"syscall"
)

// configureChild asks the kernel to kill a child process when the test
// binary dies without running its cleanups, so no node outlives its test.
func configureChild(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
