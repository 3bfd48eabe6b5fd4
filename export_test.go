package chromafs

// PlanRegexes returns the regexes that Candidates sends for lits: the
// case-insensitive filter (with fold) and the three boundary regexes.
func PlanRegexes(lits []string, fold bool) []string {
	p, ok := planSearch(uniqueLiterals(lits, fold), fold, maxRegexBytes)
	if !ok {
		return nil
	}
	out := append([]string(nil), p.filter.Regexes...)
	if p.maxRunes >= 2 {
		out = append(out, p.ends, p.starts, p.short)
	}
	return out
}
