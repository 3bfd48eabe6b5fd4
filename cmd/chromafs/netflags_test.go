package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/chromafs/chromafs/chromastore"
)

func TestChromaTimeoutFlag(t *testing.T) {
	for _, tt := range []struct {
		name, env string
		args      []string
		want      time.Duration
		serve     time.Duration
		warning   string
	}{
		{"default", "", nil, chromastore.DefaultTimeout, chromastore.DefaultTimeout, ""},
		{"env", "5s", nil, 5 * time.Second, 5 * time.Second, ""},
		{"flag over env", "5s", []string{"--chroma-timeout", "2s"}, 2 * time.Second, 2 * time.Second, ""},
		{"none, but serve keeps one", "", []string{"--chroma-timeout=-1s"}, -time.Second, chromastore.DefaultTimeout, ""},
		{"bad env", "soon", nil, chromastore.DefaultTimeout, chromastore.DefaultTimeout, `CHROMAFS_CHROMA_TIMEOUT="soon" is not a duration`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CHROMAFS_CHROMA_TIMEOUT", tt.env)
			var n netFlags
			var stderr bytes.Buffer
			fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
			addNetFlags(fs, &n, &stderr)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if n.chromaTimeout != tt.want || n.serveChromaTimeout() != tt.serve {
				t.Errorf("timeout %v, serve %v; want %v, %v", n.chromaTimeout, n.serveChromaTimeout(), tt.want, tt.serve)
			}
			if got := stderr.String(); (tt.warning == "") != (got == "") || !strings.Contains(got, tt.warning) {
				t.Errorf("stderr %q, want %q", got, tt.warning)
			}
		})
	}
}
