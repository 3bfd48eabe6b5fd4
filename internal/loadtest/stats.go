package loadtest

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: 1 µs to 1 hour, 3 significant digits (0.1%): about
// 190 KB per histogram whatever the number of values.
const (
	histMin    = 1
	histMax    = int64(time.Hour / time.Microsecond)
	histDigits = 3
)

// histogram is a latency histogram safe for concurrent use.
type histogram struct {
	mu sync.Mutex
	h  *hdrhistogram.Histogram
}

func newHistogram() *histogram {
	return &histogram{h: hdrhistogram.New(histMin, histMax, histDigits)}
}

func (h *histogram) record(d time.Duration) {
	us := max(int64(d/time.Microsecond), histMin)
	us = min(us, histMax)
	h.mu.Lock()
	_ = h.h.RecordValue(us) // within bounds: cannot fail
	h.mu.Unlock()
}

func (h *histogram) latency() Latency {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.h.TotalCount() == 0 {
		return Latency{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Latency{
		Count: h.h.TotalCount(),
		P50:   ms(h.h.ValueAtQuantile(50)),
		P90:   ms(h.h.ValueAtQuantile(90)),
		P99:   ms(h.h.ValueAtQuantile(99)),
		Max:   ms(h.h.Max()),
		Mean:  float64(int64(h.h.Mean())) / 1000,
	}
}

type counts struct{ Started, OK, Failed atomic.Int64 }

func (c *counts) load() Counts {
	return Counts{Started: c.Started.Load(), OK: c.OK.Load(), Failed: c.Failed.Load()}
}

type toolStats struct {
	calls   counts
	latency *histogram
}

type urlStats struct {
	sessions counts
	calls    atomic.Int64
	refused  atomic.Int64
}

// stats are a run's counters and histograms; their size depends on the
// number of tools, URLs and error kinds, never on the run's length.
type stats struct {
	cfg                                   Config
	sessions, calls                       counts
	sessionLatency, initialize, listTools *histogram
	perURL                                []urlStats
	retryWaits                            atomic.Int64

	mu       sync.Mutex
	tools    map[string]*toolStats
	errors   map[string]int64
	examples map[string]string
}

// maxTools bounds the tools that get their own histogram: a script
// names few, but a server could list many suffixed names.
const maxTools = 64

func newStats(cfg Config) *stats {
	return &stats{
		cfg:            cfg,
		sessionLatency: newHistogram(),
		initialize:     newHistogram(),
		listTools:      newHistogram(),
		perURL:         make([]urlStats, len(cfg.URLs)+len(cfg.HTTPURLs)),
		tools:          map[string]*toolStats{},
		errors:         map[string]int64{},
		examples:       map[string]string{},
	}
}

// tool returns the stats of the tool name (those of "(other)" past
// maxTools names).
func (s *stats) tool(name string) *toolStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tools[name]
	if t == nil {
		if len(s.tools) >= maxTools {
			name = "(other)"
			if t = s.tools[name]; t != nil {
				return t
			}
		}
		t = &toolStats{latency: newHistogram()}
		s.tools[name] = t
	}
	return t
}

// fail counts err (an *Error, else a transport failure) for step.
func (s *stats) fail(step string, err error) {
	kind := KindTransport
	if e, ok := err.(*Error); ok {
		kind = e.Kind
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errors[kind]++
	if _, ok := s.examples[kind]; !ok {
		s.examples[kind] = step + ": " + err.Error()
	}
}

func (s *stats) summary(elapsed time.Duration, interrupted bool) *Summary {
	out := &Summary{
		URLs:           s.cfg.URLs,
		HTTPURLs:       s.cfg.HTTPURLs,
		Script:         s.cfg.Script.Name(),
		Concurrency:    s.cfg.Concurrency,
		ElapsedSeconds: elapsed.Seconds(),
		Interrupted:    interrupted,
		Sessions:       s.sessions.load(),
		Calls:          s.calls.load(),
		SessionLatency: s.sessionLatency.latency(),
		Initialize:     s.initialize.latency(),
		ListTools:      s.listTools.latency(),
		Tools:          map[string]ToolStats{},
		Errors:         map[string]int64{},
		ErrorExamples:  map[string]string{},
		RetryWaits:     s.retryWaits.Load(),
	}
	if len(s.cfg.URLs) == 0 {
		out.Script = "HTTP walk"
	}
	if sec := elapsed.Seconds(); sec > 0 {
		out.SessionsPerSecond = float64(out.Sessions.OK) / sec
		out.CallsPerSecond = float64(out.Calls.Started) / sec
	}
	s.mu.Lock()
	for name, t := range s.tools {
		out.Tools[name] = ToolStats{Calls: t.calls.load(), Latency: t.latency.latency()}
	}
	for k, v := range s.errors {
		out.Errors[k] = v
	}
	for k, v := range s.examples {
		out.ErrorExamples[k] = v
	}
	s.mu.Unlock()
	for i := range s.perURL {
		u := &s.perURL[i]
		out.PerURL = append(out.PerURL, URLStats{URL: slices.Concat(s.cfg.URLs, s.cfg.HTTPURLs)[i], Sessions: u.sessions.load(), Calls: u.calls.Load(), Refused: u.refused.Load()})
	}
	return out
}
