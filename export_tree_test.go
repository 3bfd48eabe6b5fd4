package chromafs

import "time"

// SetTreeRetry sets the backoff of remembered tree failures and returns a
// function that restores it.
func SetTreeRetry(first, most time.Duration) (restore func()) {
	f, m := treeRetryFirst, treeRetryMax
	treeRetryFirst, treeRetryMax = first, most
	return func() { treeRetryFirst, treeRetryMax = f, m }
}

// TreeParses returns the number of tree documents parsed so far.
func TreeParses() int64 { return treeParses.Load() }
