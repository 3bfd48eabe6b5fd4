package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// byteSize is a flag of a size in bytes: a number with an optional unit
// K, M, G, T (powers of 1024; KiB, MiB, GiB, TiB and KB, MB, GB, TB mean
// the same), such as 512MiB or 2G.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSize) Type() string   { return "size" }

func (b *byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

// parseByteSize parses a byteSize.
func parseByteSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mult := int64(1)
	if t != "" {
		if i := strings.IndexByte("KMGT", t[len(t)-1]); i >= 0 {
			mult = 1 << (10 * (i + 1))
			t = t[:len(t)-1]
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || n < 0 || n*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("%q is not a size: want bytes, or a number with K, M, G or T (powers of 1024), such as 512MiB or 2G", s)
	}
	return int64(n * float64(mult)), nil
}

// machineMemory is the memory this process may use: the cgroup's limit
// (cgroup v2 memory.max, or v1 memory.limit_in_bytes) when there is one,
// else the machine's MemTotal; 0 when neither can be read.
func machineMemory() int64 {
	var total int64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				total = kb << 10
			}
		}
		f.Close()
	}
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			return n
		}
	}
	return total
}

// defaultMaxMemory is serve --sites's default --max-memory: half of
// machineMemory, or 1 GiB when it cannot be read.
func defaultMaxMemory() int64 {
	if m := machineMemory(); m > 0 {
		return m / 2
	}
	return 1 << 30
}
