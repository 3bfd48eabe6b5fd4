// Package chromastore implements chromafs's store interfaces
// ([collection.Store], [collection.IDReader], [collection.Scanner],
// [collection.Writer]) over a Chroma server's HTTP API, without
// github.com/amikos-tech/chroma-go: its sub-package chromaembed adapts
// chroma-go's embedding functions for the programs that write with them.
//
//	c, err := chromastore.Open(ctx, chromastore.Config{
//		URL:        "http://localhost:8000",
//		Collection: "docs",
//	})
//	if err != nil { ... }
//	defer c.Close()
//	fsys, err := chromafs.New(ctx, c)
//
// Opening a collection makes one request; reading the tree record makes one
// more. Every call is a plain REST call to Chroma's /api/v2: collection
// lookup, creation (recording the embedding function's configuration as
// chroma-go does), deletion, metadata and count, and the record calls
// (get, upsert, delete). chroma-go v0.4.0's API client loses the cause of
// transport errors, cannot ask for ids only, decodes pages much more
// slowly, and costs every process that links it milliseconds of
// initialisation (see rest.go). Answers are decoded with github.com/go-json-experiment/json
// (the prototype of encoding/json/v2); the tree record's document is
// neither copied out of the answer nor scanned byte by byte (see
// decode.go), so that decoding a tree answer takes a fraction of
// encoding/json's time (BenchmarkDecodeTreeAnswer; BENCHMARKS.md).
//
// # Limits
//
// With [Config.CloudLimits], every request stays within the limits of
// Chroma Cloud, the strictest deployment, so that the same code works
// against a local server, a distributed one and the cloud. Without it,
// reads of chunks ([Collection.Chunks]) and coarse searches
// ([Collection.Search]) use larger pages ([ChunksPageSize]) and $in lists
// ([SearchMaxIn]), since each of their requests costs a pass over the
// collection, and regexes are not bounded; everything else is the same:
//
//   - a get asks for at most [PageSize] (300) records (under CloudLimits;
//     see above for the two exceptions otherwise), and pages with
//     limit and offset until a page comes back short; a get by id
//     ([Collection.ChunksByID]) asks for at most PageSize ids;
//   - a where filter's $in list carries at most [MaxIn] (200) values
//     ([SearchMaxIn], 16,384, for [Collection.Search] without
//     CloudLimits) and is never empty (Chroma answers 400 to an empty $in and 500 to one of
//     more than 32,762 values); batches of one call run up to four at a
//     time;
//   - an upsert sends at most 300 records and splits a batch whose request
//     would exceed 8 MiB; a single record that needs more than 32 MiB is
//     refused before anything is sent (Chroma refuses bodies over 40 MiB);
//   - documents are sent as they are; Chroma Cloud refuses documents over
//     16 KiB, so under CloudLimits an upsert with a larger document is
//     refused before anything is sent, and writers that target it must
//     chunk below that (ingest shards a larger path tree).
//
// Offset paging over a collection that changes between pages can repeat or
// miss records; records repeated are dropped. Chroma returns records in
// insertion order.
//
// # Errors
//
// Every error names the operation, the collection and the server, and
// wraps its cause, for example
//
//	chromastore: get chunks of 3 pages from "docs" at http://127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused
//
// so that errors.Is(err, syscall.ECONNREFUSED), errors.Is(err,
// context.Canceled) and errors.Is(err, context.DeadlineExceeded) work. An
// error answer from Chroma is an [*APIError]. Every operation on a
// collection that does not exist (or was deleted after Open) wraps
// [ErrNoCollection]; [Collection.Tree] of a missing record wraps
// [collection.ErrNoTree]. Every call honours its context's deadline and
// cancellation, and Config.Timeout bounds each HTTP request
// ([DefaultTimeout], 30 s, unless set): a Chroma that accepts connections
// but never answers (a frozen process) fails a call with an error
// wrapping context.DeadlineExceeded ("no answer within 30s") instead of
// hanging it.
//
// # Embeddings
//
// Reads never embed anything. [Collection.Upsert] embeds the documents of
// content records with Config.Embedding, and gives system records (the
// tree) a zero vector of the collection's dimension and metadata
// "_system": true ([SystemKey]), so they never rank in a semantic search.
// The dimension is the collection's, or else that of the embedding
// function, learnt by embedding one probe string.
//
// When Config.Embedding is nil, chromastore uses the consistent-hash
// function of chroma-go (reimplemented here, vector for vector), which
// downloads nothing: its vectors are deterministic but carry no meaning.
// [HashEmbedding] gives the same function with another dimension. A
// collection that serves semantic search as well should be written with
// the embedding function it was created with; [EmbeddingFunction] selects
// one by name for a command-line flag (see [EmbeddingNames]). A program
// that imports package chromaembed gets "default", chroma-go's ONNX
// all-MiniLM-L6-v2, which downloads its model on first use, and can adapt
// any other chroma-go function with chromaembed.Adapt. chroma-go's
// embedding stack stays out of programs that do not import chromaembed:
// its package initialisation would cost every process that reads a
// collection milliseconds.
//
// # Chroma versions
//
// The tests run against Chroma 1.0 (npm bindings 1.0.5) and 1.3 (bindings
// 1.3.4, with CHROMAFS_CHROMA_VERSION=1.3; see internal/testenv). What
// differs between them and matters here:
//
//   - 1.3 refuses metadata keys that are empty or start with '#' or '$',
//     in records and in collections, and names the key only for a
//     collection's; chromastore refuses them on both
//     ([CheckMetadataKey]), before any request.
//   - 1.3 stores arrays of one scalar type in record metadata (1.0
//     answers 422); they read back as []any. Neither stores an array in
//     collection metadata: 1.0 answers 422 and 1.3.4 drops the connection
//     (a panic in its handler); [Collection.SetMetadata] refuses one.
//   - 1.3 adds a "schema" to a collection's description; the
//     configuration_json that chromastore reads still holds the index's
//     space and the embedding function (also one given in the schema
//     alone), and a configuration update changes both.
//   - Cosmetic: a missing collection is "does not exist" (1.0: "does not
//     exists"; chromastore goes by status and error kind, never the
//     text), and a delete answers {"deleted": N} (1.0: {}; 1.3.4 counts
//     ids that did not exist, so chromastore does not read it).
//     /api/v2/version answers "1.0.0" on both.
package chromastore
