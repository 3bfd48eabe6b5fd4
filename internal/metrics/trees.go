package metrics

import "github.com/prometheus/client_golang/prometheus"

// TreeStats is what a process holds of trees and has done (the root
// package's SharedStats, which this package does not import).
type TreeStats struct {
	Loaded, Evicted int64
	Trees           int
	Bytes           int64
}

// AddTrees adds a source of tree counts to the scrapes: the Shared that
// a serve process makes its sessions with. Several sources add up.
func (m *Metrics) AddTrees(stats func() TreeStats) {
	if m == nil || stats == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.trees = append(m.trees, stats)
}

var (
	treesLoaded = prometheus.NewDesc("chromafs_trees_loaded_total",
		"Trees parsed from tree records or decoded from compact indexes; a tree kept in memory and reused by later sessions is loaded once.",
		nil, nil)
	treesEvicted = prometheus.NewDesc("chromafs_trees_evicted_total",
		"Trees evicted from memory to keep the trees' memory bound.",
		nil, nil)
	treesCached = prometheus.NewDesc("chromafs_trees_cached",
		"Trees held in memory for new sessions.",
		nil, nil)
	treesBytes = prometheus.NewDesc("chromafs_trees_cached_bytes",
		"Estimated memory of the trees held, which the trees' memory bound limits.",
		nil, nil)
)

// treeCollector reads the trees' counts at each scrape.
type treeCollector struct{ m *Metrics }

func (c treeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- treesLoaded
	ch <- treesEvicted
	ch <- treesCached
	ch <- treesBytes
}

func (c treeCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.Lock()
	sources := append([]func() TreeStats(nil), c.m.trees...)
	c.m.mu.Unlock()
	if len(sources) == 0 {
		return
	}
	var sum TreeStats
	for _, f := range sources {
		s := f()
		sum.Loaded += s.Loaded
		sum.Evicted += s.Evicted
		sum.Trees += s.Trees
		sum.Bytes += s.Bytes
	}
	ch <- prometheus.MustNewConstMetric(treesLoaded, prometheus.CounterValue, float64(sum.Loaded))
	ch <- prometheus.MustNewConstMetric(treesEvicted, prometheus.CounterValue, float64(sum.Evicted))
	ch <- prometheus.MustNewConstMetric(treesCached, prometheus.GaugeValue, float64(sum.Trees))
	ch <- prometheus.MustNewConstMetric(treesBytes, prometheus.GaugeValue, float64(sum.Bytes))
}
