package chromastore

// SetSearchPageSize sets the page size of Search answers, so that tests
// can exercise paging on small collections, and returns a function that
// restores it.
func SetSearchPageSize(n int) (restore func()) {
	old := searchPageSize
	searchPageSize = n
	return func() { searchPageSize = old }
}
