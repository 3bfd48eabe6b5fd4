package chromafs

// ResetTreeCache forgets every parsed tree, so that the next New parses
// its tree again (for cold-start benchmarks and tests).
func ResetTreeCache() { parsedTrees.InvalidateAll() }
