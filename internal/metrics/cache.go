package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chromafs/chromafs/cachepkg"
)

// namedCache is a page cache that the metrics report, under its tier.
type namedCache struct {
	tier string
	c    cachepkg.StatsReporter
}

// AddCache reports the lookups of a page cache, under tier (memory,
// redis: a fixed name), when it counts them (cachepkg.StatsReporter);
// a *cachepkg.Memory is always reported as tier "memory", and a
// *cachepkg.Tiered as its two tiers (the back one under tier). Other
// caches are left out.
func (m *Metrics) AddCache(tier string, c cachepkg.Cache) {
	if m == nil {
		return
	}
	if t, ok := c.(*cachepkg.Tiered); ok {
		front := tier + "_front"
		if _, ok := t.Front.(*cachepkg.Memory); ok {
			front = "memory"
		}
		m.AddCache(front, t.Front)
		m.AddCache(tier, t.Back)
		return
	}
	if _, ok := c.(*cachepkg.Memory); ok {
		tier = "memory"
	}
	r, ok := c.(cachepkg.StatsReporter)
	if !ok {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.caches = append(m.caches, namedCache{tier, r})
}

var (
	cacheLookups = prometheus.NewDesc("chromafs_page_cache_lookups_total",
		"Page cache lookups, a key each, by tier (memory, redis) and result (hit, miss).",
		[]string{"tier", "result"}, nil)
	cacheErrors = prometheus.NewDesc("chromafs_page_cache_errors_total",
		"Page cache lookups that failed (the cache could not be reached; counted as misses too), by tier.",
		[]string{"tier"}, nil)
)

// cacheCollector reads the caches' counts at each scrape.
type cacheCollector struct{ m *Metrics }

func (c cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- cacheLookups
	ch <- cacheErrors
}

func (c cacheCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.Lock()
	caches := append([]namedCache(nil), c.m.caches...)
	c.m.mu.Unlock()
	// Two caches of one tier (two sites' memory caches) add up.
	type sums struct{ hits, misses, errs uint64 }
	by := map[string]*sums{}
	var order []string
	for _, nc := range caches {
		s := nc.c.Stats()
		t := by[nc.tier]
		if t == nil {
			t = &sums{}
			by[nc.tier] = t
			order = append(order, nc.tier)
		}
		t.hits += s.Hits
		t.misses += s.Misses
		t.errs += s.Errors
	}
	for _, tier := range order {
		t := by[tier]
		ch <- prometheus.MustNewConstMetric(cacheLookups, prometheus.CounterValue, float64(t.hits), tier, "hit")
		ch <- prometheus.MustNewConstMetric(cacheLookups, prometheus.CounterValue, float64(t.misses), tier, "miss")
		ch <- prometheus.MustNewConstMetric(cacheErrors, prometheus.CounterValue, float64(t.errs), tier)
	}
}
