package testenv

import (
	"os"
	"syscall"
)

// sysProcAttr puts a server in its own process group, so that killGroup
// reaches its children too, and has the kernel kill it when the test
// binary dies without running Main's cleanup.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup sends SIGKILL to p's process group.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill()
}
