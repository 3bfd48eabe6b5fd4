//go:build race

package adopt

// generatedPages is the number of generated pages in the splitter
// corpus: fewer under the race detector, which slows the splitters
// tenfold and finds nothing in single-goroutine code.
const generatedPages = 60

// coarseLiterals is the number of literals TestCoarseAdopted takes per
// layout on memstore, whose regex search slows tenfold under the race
// detector.
const coarseLiterals = 12
