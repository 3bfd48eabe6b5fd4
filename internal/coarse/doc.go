// Package coarse holds the parts of chromafs's coarse filter (the root's
// FS.Candidates, grep's first step) that need no session: the conditions
// sent to the store for a literal set ([NewPlan]), the reading of what the
// store returns ([FromID], [Straddles]), and the record of its answers
// ([Bits]) with the key it is kept under ([Key], [SharedKey]), its cache
// ([NewCache]) and the form in which processes share it ([Bits.Encode],
// [Decode]), and the self-check of the store's answers ([Class],
// [Health], [Matcher]).
//
// The root package supplies what depends on a view: the tree and its
// pages, the page cache, the store, and which pages need which queries.
//
// # Answers
//
// An answer is a property of a page's content and of the query, not of
// the view: "may this page contain one of these literals". It is kept in
// a [Bits] under a [Key] naming everything the answer depends on (the
// collection, the tree version, the separator and layout, the literal set
// and fold, and what decides which queries a page needs), with one bit
// per entry of the tree: whether the page was asked, and whether it may
// contain a literal.
package coarse
