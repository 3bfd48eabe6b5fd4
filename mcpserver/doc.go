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
