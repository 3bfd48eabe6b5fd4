package loadtest

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// WriteText writes the summary for a person, e.g.
//
//	2 URLs, 8 concurrent sessions, built-in docs-question script, 3.01 s
//	sessions  240 ok, 0 failed    79.7 sessions/s
//	calls    1440 ok, 0 failed   478.4 calls/s
//
//	latency (ms)    count     p50     p90     p99     max
//	session           240   95.21   130.4   170.2   181.0
//	initialize        240   4.102   ...
//	tools/list        240   ...
//	bash              240   ...
//	...
//
//	errors by kind: none
//
// followed by each URL's share when there are several.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	urls := "1 URL"
	if n := len(s.URLs) + len(s.HTTPURLs); n != 1 {
		urls = fmt.Sprintf("%d URLs", n)
	}
	fmt.Fprintf(&b, "%s, %d concurrent sessions, %s script, %.2f s", urls, s.Concurrency, s.Script, s.ElapsedSeconds)
	if s.Interrupted {
		b.WriteString(" (interrupted)")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "sessions %6d ok, %d failed %10.1f sessions/s\n", s.Sessions.OK, s.Sessions.Failed, s.SessionsPerSecond)
	fmt.Fprintf(&b, "calls    %6d ok, %d failed %10.1f calls/s\n", s.Calls.OK, s.Calls.Failed, s.CallsPerSecond)
	fmt.Fprintf(&b, "\n%-16s %7s %8s %8s %8s %8s\n", "latency (ms)", "count", "p50", "p90", "p99", "max")
	row := func(name string, l Latency) {
		fmt.Fprintf(&b, "%-16s %7d %8s %8s %8s %8s\n", name, l.Count, ms(l.P50), ms(l.P90), ms(l.P99), ms(l.Max))
	}
	row("session", s.SessionLatency)
	if len(s.URLs) > 0 {
		row("initialize", s.Initialize)
		row("tools/list", s.ListTools)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Tools)) {
		row(name, s.Tools[name].Latency)
	}
	if len(s.Errors) == 0 {
		b.WriteString("\nerrors by kind: none\n")
	} else {
		b.WriteString("\nerrors by kind:\n")
		for _, k := range slices.Sorted(maps.Keys(s.Errors)) {
			fmt.Fprintf(&b, "  %-12s %7d  first: %s\n", k, s.Errors[k], s.ErrorExamples[k])
		}
	}
	if s.RetryWaits > 0 {
		fmt.Fprintf(&b, "\nwaits that Retry-After asked for: %d\n", s.RetryWaits)
	}
	if len(s.PerURL) > 1 {
		b.WriteString("\nper URL:\n")
		for _, u := range s.PerURL {
			fmt.Fprintf(&b, "  %s  %d sessions ok, %d failed, %d calls", u.URL, u.Sessions.OK, u.Sessions.Failed, u.Calls)
			if u.Refused > 0 {
				fmt.Fprintf(&b, "; refused the connection: %d sessions ran on the other URLs", u.Refused)
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ms prints a latency with 4 significant digits.
func ms(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 100:
		return fmt.Sprintf("%.1f", v)
	case v >= 10:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
