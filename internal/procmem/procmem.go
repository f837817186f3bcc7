// Package procmem reads the process's resident memory from Linux's /proc,
// for the benchmarks that report it (engram's own and bench/peers').
package procmem

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"strconv"
)

// ErrNoStatus is Resident's error when /proc/self/status holds no VmRSS
// or VmHWM line.
var ErrNoStatus = errors.New("procmem: /proc/self/status has no VmRSS or VmHWM")

// Resident returns the process's resident memory and its peak (VmRSS and
// VmHWM of /proc/self/status) in bytes. It returns the error of reading
// the file where there is no /proc, and ErrNoStatus.
func Resident() (rss, peak int64, err error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, err
	}
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil {
			continue
		}
		switch string(f[0]) {
		case "VmRSS:":
			rss, found = kb<<10, found+1
		case "VmHWM:":
			peak, found = kb<<10, found+1
		}
	}
	if found != 2 {
		return 0, 0, ErrNoStatus
	}
	return rss, peak, nil
}

// ResetPeak sets the process's peak resident memory (VmHWM) to what it
// holds now (writing 5 to /proc/self/clear_refs) and returns that. It
// returns the error of writing or reading /proc where it is not there.
func ResetPeak() (rss int64, err error) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0, err
	}
	rss, _, err = Resident()
	return rss, err
}
