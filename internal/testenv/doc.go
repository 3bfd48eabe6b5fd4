// Package testenv starts the real servers that chromafs's tests run
// against: a pinned Chroma from npm (1.0 by default, 1.3 on request) and
// Debian's redis-server, each on a free loopback port.
//
// A test binary that uses it calls [Main] from TestMain:
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//
// and then asks for a server where it needs one:
//
//	srv := testenv.Chroma(t) // srv.URL is http://127.0.0.1:PORT
//	rdb := testenv.Redis(t)  // rdb.URL is redis://127.0.0.1:PORT
//
// # Shared and private servers
//
// [Chroma] and [Redis] start their server lazily, on first use, and share it
// with every test of the binary; [Main] stops it after the tests have run
// and removes its data directory. Tests that share a server must not stop
// it: a fault test (a server that dies mid-request, a restart that loses a
// cache) asks for a private one with [NewChroma] or [NewRedis], which is
// stopped and removed when that test ends, and calls [Server.Stop],
// [Server.Start] or [Server.Restart] on it. A restart kills the process
// and starts a new one on the same port and data directory.
//
// [NewRedisCluster] starts a Redis Cluster of masters (redis-server
// --cluster-enabled, joined by redis-cli --cluster create) and
// [NewRedisSentinel] a Redis master with a Sentinel, each private to one
// test as [NewRedis] is; [RedisCluster.Kill] kills one master.
//
// # Real writers
//
// [WriteWith] writes a docs folder into a new collection of a Chroma server
// with the real npm packages of LangChain.js or LlamaIndex.TS ([Writer],
// [SplitMode]), through internal/testenv/writers/write.mjs, so that tests
// read the layouts those libraries really write. The packages are
// installed by `make deps-writers` (part of `make deps`).
//
// # Environment
//
//   - CHROMA_URL, REDIS_URL: use this running server instead of starting
//     one (shared servers only; a private server is always started here).
//   - CHROMAFS_CHROMA_VERSION: which Chroma to start, "1.0" (the default:
//     chromadb 3.0.14 with bindings 1.0.5, in internal/testenv/chroma) or
//     "1.3" (chromadb 3.5.0 with bindings 1.3.4, in
//     internal/testenv/chroma13, run under the dynamic loader of Debian
//     13's libc6 because those bindings need glibc 2.38; `make
//     deps-chroma13` installs both). Another value fails the tests that
//     ask for Chroma. See [ChromaVersion].
//   - CHROMA_BIN: the chroma executable, run as it is whatever
//     CHROMAFS_CHROMA_VERSION says; default
//     internal/testenv/chroma/node_modules/.bin/chroma under the module
//     root, installed by `make deps` or `cd internal/testenv/chroma && npm ci`.
//   - REDIS_BIN: the redis-server executable; default redis-server from
//     PATH (Debian: apt-get install -y redis-server).
//   - CI=true: a missing executable fails the test instead of skipping it.
//
// # Processes
//
// Servers run as child processes in their own process group, with their
// output in a log file whose tail is quoted by every start error. They are
// killed when [Main] returns, when a private server's test ends, when the
// test binary receives SIGINT or SIGTERM, and (on Linux, through
// Pdeathsig) when the test binary dies in any other way.
package testenv
