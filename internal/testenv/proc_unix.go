//go:build unix && !linux

package testenv

import (
	"os"
	"syscall"
)

// sysProcAttr puts a server in its own process group, so that killGroup
// reaches its children too.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to p's process group.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill()
}
