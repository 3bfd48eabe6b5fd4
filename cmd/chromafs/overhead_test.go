package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/testenv"
)

// TestObservabilityOverhead measures what metrics and tracing cost
// sessions/s: three `serve --mcp` processes over the same real Chroma
// collection, one with --admin and --otlp-endpoint (an in-test OTLP
// receiver that reads and acknowledges every export), one with --admin
// only and one with neither, loaded by loadtest in turn, each round in
// another order, for a few rounds
// (CI: one round of 1 s each; CHROMAFS_SOAK: 4 rounds of that long
// each). It prints the ratios of the rates (to neither; BENCHMARKS.md holds
// the figures) and asserts no timing, only that all served without
// error and that the spans and the metrics of the instrumented process
// were made.
func TestObservabilityOverhead(t *testing.T) {
	g := overloadCollection(t)
	var exports, spanBytes atomic.Int64
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/v1/traces" {
			exports.Add(1)
			spanBytes.Add(n)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}") //nolint:errcheck
	}))
	defer rcv.Close()
	on := startServeProc(t, nil, []string{"mcp", "admin"}, append(g, "--mcp", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--otlp-endpoint", rcv.URL)...)
	metricsOnly := startServeProc(t, nil, []string{"mcp", "admin"}, append(g, "--mcp", "127.0.0.1:0", "--admin", "127.0.0.1:0")...)
	off := startServeProc(t, nil, []string{"mcp"}, append(g, "--mcp", "127.0.0.1:0")...)
	configs := []struct {
		name string
		p    *serveProc
	}{{"metrics+tracing", on}, {"metrics only", metricsOnly}, {"neither", off}}
	rounds, d := 1, time.Second
	if os.Getenv("CHROMAFS_SOAK") != "" {
		rounds, d = 4, testenv.SoakDuration(t)
	}
	for _, c := range configs { // warm-up: the pages in each process's memory
		if sum := runLoadtest(t, "-c", "2", "--count", "16", c.p.urls["mcp"]); sum == nil || len(sum.Errors) != 0 {
			t.Fatalf("warm-up: %+v", sum)
		}
	}
	rate := make([]float64, len(configs))
	var calls int64
	for r := range rounds {
		for k := range configs { // each round in another order
			i := (k + r) % len(configs)
			sum := runLoadtest(t, "-c", "4", "--duration", d.String(), "--timeout", "60s", configs[i].p.urls["mcp"])
			if sum == nil || len(sum.Errors) != 0 || sum.Sessions.OK == 0 {
				t.Fatalf("round %d, %s: %+v", r, configs[i].name, sum)
			}
			rate[i] += sum.SessionsPerSecond / float64(rounds)
			if i == 0 {
				calls += sum.Calls.OK
			}
			t.Logf("round %d, %-15s: %.1f sessions/s, session p99 %.1f ms", r, configs[i].name, sum.SessionsPerSecond, sum.SessionLatency.P99)
		}
	}
	t.Logf("sessions/s: metrics+tracing %.1f, metrics only %.1f, neither %.1f; on/off %.3f, metrics only/off %.3f (%d rounds of %v, 4 sessions at once)",
		rate[0], rate[1], rate[2], rate[0]/rate[2], rate[1]/rate[2], rounds, d)
	code, text := getURL(t, on.admin()+"/metrics")
	if code != http.StatusOK || !strings.Contains(text, `chromafs_mcp_tool_calls_total{outcome="ok",site="",tool="grep"}`) {
		t.Errorf("/metrics of the instrumented process: %d, no grep calls counted", code)
	}
	on.stop() // flushes the spans
	if exports.Load() == 0 || spanBytes.Load() < calls*100 {
		t.Errorf("the OTLP receiver got %d exports, %d bytes, for %d tool calls", exports.Load(), spanBytes.Load(), calls)
	}
}
