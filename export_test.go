package chromafs

import "github.com/chromafs/chromafs/internal/coarse"

// PlanRegexes returns the regexes that Candidates sends for lits: the
// case-insensitive filter (with fold) and the three boundary regexes.
func PlanRegexes(lits []string, fold bool) []string {
	p, ok := coarse.NewPlan(coarse.UniqueLiterals(lits, fold), fold, coarse.MaxRegexBytes)
	if !ok {
		return nil
	}
	out := append([]string(nil), p.Filter.Regexes...)
	if p.MaxRunes >= 2 {
		out = append(out, p.Ends, p.Starts, p.Short)
	}
	return out
}
