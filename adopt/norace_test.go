//go:build !race

package adopt

// generatedPages is the number of generated pages in the splitter
// corpus (see race_test.go).
const generatedPages = 300

// coarseLiterals is the number of literals TestCoarseAdopted takes per
// layout on memstore (see race_test.go).
const coarseLiterals = 100
