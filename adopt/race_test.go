//go:build race

package adopt

// generatedPages is the number of generated pages in the splitter
// corpus: fewer under the race detector, which slows the splitters
// tenfold and finds nothing in single-goroutine code.
const generatedPages = 60
