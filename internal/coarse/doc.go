// Package coarse is chromafs's coarse filter, the engine behind the root's
// FS.Candidates (grep's first step): which pages of a view may contain
// one of a set of literals, asked of the store's text search.
//
// A [Filter] is one session's filter, made from a [Config] that the root
// session fills once (its view, tree and version, the store, the page
// cache and its keys, the [Shared] it meets other sessions in, its
// logger). [Filter.Candidates] decides, page by page, which queries a page
// needs, reuses the answers an earlier search or another process left,
// reads the pages a shared tier of the page cache holds instead of asking
// about them (share.go), checks the store's answers against a page in
// memory (check.go) and asks the store about the rest.
//
// The parts that need no session: the conditions sent to the store for a
// literal set ([NewPlan]), the reading of what the store returns
// ([FromID], [Straddles]), the record of its answers ([Bits]) with the
// key it is kept under ([Key], [SharedKey]), the form in which processes
// share it ([Bits.Encode], [Decode]), and the self-check's classes and
// record ([Class], [Health], [Matcher]).
//
// # Answers
//
// An answer is a property of a page's content and of the query, not of
// the view: "may this page contain one of these literals". It is kept in
// a [Bits] under a [Key] naming everything the answer depends on (the
// collection, the tree version, the separator and layout, the literal set
// and fold, and what decides which queries a page needs), with one bit
// per entry of the tree: whether the page was asked, and whether it may
// contain a literal. A [Shared] holds them for the sessions of one
// chromafs.Shared, under one memory bound.
package coarse
