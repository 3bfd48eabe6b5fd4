// Package mcpserver serves a filesystem to AI agents over the Model
// Context Protocol: New returns an *mcp.Server (of the official Go SDK,
// github.com/modelcontextprotocol/go-sdk) with six read-only tools, and
// search with Config.Search, for any transport the SDK offers (stdio for
// one user, streamable HTTP for many). Config.Tools serves a subset of
// them, and Config.NameSuffix renames them (bash_acme, search_acme) so
// that one client can hold the servers of several sites.
//
//	srv := mcpserver.New(mcpserver.Config{
//		FS: func(ctx context.Context) (fs.FS, error) { return fsys, nil },
//	})
//	err := srv.Run(ctx, &mcp.StdioTransport{})
//
// # Tools
//
//   - bash {command}: a command line of package shell (the GNU commands of
//     package gnu with bash's grammar, sealed and read-only) in the
//     session's working directory, which persists from call to call;
//     the answer is the output (standard output and standard error as they
//     were written) and the exit status, with the structured content
//     {stdout, stderr, exit_code, cwd}.
//   - read {path, offset?, limit?}: a file's lines numbered as cat -n
//     numbers them, from line offset (default 1), at most limit lines
//     (default 2,000), each cut at 2,000 characters with a marker, and a
//     footer "(lines A-B of N; use offset=B+1 to continue)" when lines
//     remain. With paths (up to MaxReadPaths of {path, offset?, limit?})
//     instead of path, several files in one answer, each under a
//     "==> /path <==" header, a file that cannot be read with an "error:"
//     line under its header (the call does not fail), and one output
//     bound for all: the files that do not fit are named at the end.
//   - ls {path?}: a directory's entries, one a line, directories with a
//     trailing "/", files with their size.
//   - glob {pattern, path?}: the paths that a "**" pattern matches, sorted.
//   - grep {pattern, path?, glob?, output_mode?, case_insensitive?,
//     fixed_strings?, perl_regexp?, context?, line_numbers?, head_limit?}:
//     GNU grep -r (package gnu's Grep, so grepx with its accelerations)
//     with extended regular expressions, or Perl ones (grep -P).
//   - stat {path}: type, size, modification time, and the content type and
//     hash when the filesystem records them, with the same as structured
//     content.
//
// Paths are absolute from "/", the root of the filesystem; a relative path
// resolves against the session's working directory (the one bash's cd
// changes). Every answer is bounded (Config.MaxOutput, 30,000 characters by
// default) and ends, when it was cut, with a note saying how to get the
// rest.
//
// The descriptions and the server's instructions say that much, and name
// the other tools by the names they are served under and only when they
// are served. They are kept short, since every agent's context pays for
// them in each session: the whole tools/list is at most 8,000 bytes, and
// at most 3,000 for bash and search alone (TestToolFootprint).
//
// # Resources
//
// The pages of the session's view are MCP resources as well, for clients
// that attach documents as context: resources/list lists them (never a
// directory, never a page the view hides), in the order of fs.WalkDir,
// ResourcePageSize an answer with a cursor for the next, each with its URI
// chromafs:///path (PageURI), its absolute path as name, its MIME type
// (text/markdown for .md and .mdx, text/plain otherwise) and its size when
// the filesystem knows it without a read. resources/read of a URI answers
// the page's text, at most Config.MaxResourceBytes (256 KiB by default) of
// it: a longer page is cut at the end of a line, with a last line that
// says how to read the rest. The template chromafs:///{+path}
// (ResourceTemplate) names any page. Errors are invalid-params errors
// (the code the SDK gives a resource not found), with the URI as data
// for a page not found: a missing page, or one the view hides, gets the
// read tool's words for a missing path; a directory, or a URI that is not
// chromafs:/// and a valid path (another scheme, a host, a query, "..", a
// bad or unsafe percent-encoding), words that say what to send. The
// resources do not count in tools/list.
//
// Resources are answered from the session's filesystem, or with
// Config.Resources from the one it gives at each request (the current
// view of the session's user, while the tools keep the session's).
// NewNotifying returns with the server a function that sends
// notifications/resources/list_changed to all its sessions: a server
// that notices a new tree of its collection calls it (package
// internal/server does, for each group set's server).
//
// # Sessions
//
// Each MCP session gets its filesystem from Config.FS at its first tool
// call and keeps it, and one shell.Session over it, until the session ends.
// The tools other than bash read through the filesystem bound to the call's
// context when the filesystem can be bound (fscap.BindContextFS, which
// *chromafs.FS implements), so that a cancelled call stops its reads.
//
// # Errors
//
// A missing path is a tool error that says so and names the nearest
// directory above it that exists, for an ls. A path the user may not see
// gets exactly the same answer, found from the filesystem's own listing
// without any other request. Other failures (an unreachable store) are tool
// errors with the filesystem's words.
package mcpserver
