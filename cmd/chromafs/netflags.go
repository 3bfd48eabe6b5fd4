package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/chromafs/chromafs/chromastore"
)

// netFlags are the global flags that bound the time of network calls.
type netFlags struct {
	// chromaTimeout bounds each request to Chroma (chromastore's
	// Config.Timeout): 0 means chromastore.DefaultTimeout, a negative
	// value no bound (serve always keeps one).
	chromaTimeout time.Duration
}

// addNetFlags registers --chroma-timeout (env CHROMAFS_CHROMA_TIMEOUT) on
// pf. An environment value that is not a duration is reported on stderr
// and the default used.
func addNetFlags(pf *pflag.FlagSet, n *netFlags, stderr io.Writer) {
	def := chromastore.DefaultTimeout
	if v, ok := os.LookupEnv("CHROMAFS_CHROMA_TIMEOUT"); ok && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintf(stderr, "chromafs: CHROMAFS_CHROMA_TIMEOUT=%q is not a duration such as 30s; using %v\n", v, def)
		} else {
			def = d
		}
	}
	pf.DurationVar(&n.chromaTimeout, "chroma-timeout", def,
		"deadline of each request to Chroma: a Chroma that does not answer in time fails the command (serve answers 504) instead of hanging it; negative for none (env CHROMAFS_CHROMA_TIMEOUT)")
}

// serveChromaTimeout is the per-request deadline that serve uses: the
// flag's, or chromastore.DefaultTimeout when the flag asks for none.
func (n *netFlags) serveChromaTimeout() time.Duration {
	if n.chromaTimeout <= 0 {
		return chromastore.DefaultTimeout
	}
	return n.chromaTimeout
}
