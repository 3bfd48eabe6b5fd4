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

// CoarseHealth reports what the coarse filter's self-check learned of
// fsys's collection at its tree version: whether searches of the
// $regex class (regex) with a literal under 3 characters or not (short)
// were verified, and whether the filter is off.
func CoarseHealth(fsys *FS, regex, short bool) (verified, off bool) {
	var c coarse.Class
	if regex {
		c |= coarse.ClassRegex
	}
	if short {
		c |= coarse.ClassShort
	}
	h := fsys.s.coarse.Health()
	return h.Verified(c), h.Off()
}
