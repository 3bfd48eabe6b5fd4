package chromastore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/sync/semaphore"

	"github.com/chromafs/chromafs/collection"
)

// Compile-time checks that *Collection is a complete store.
var (
	_ collection.Store      = (*Collection)(nil)
	_ collection.IDReader   = (*Collection)(nil)
	_ collection.Scanner    = (*Collection)(nil)
	_ collection.Writer     = (*Collection)(nil)
	_ collection.Searcher   = (*Collection)(nil)
	_ collection.PartReader = (*Collection)(nil)
)

// Defaults of [Config].
const (
	DefaultTenant   = "default_tenant"
	DefaultDatabase = "default_database"
	// DefaultTimeout bounds each request when Config.Timeout is zero:
	// far longer than any request of chromafs takes on a healthy server
	// (a 100k-entry tree record reads in well under a second), short
	// enough that a frozen server is reported rather than waited for.
	DefaultTimeout = 30 * time.Second
)

// ErrNoCollection is wrapped by the error of every operation on a
// collection that does not exist (or no longer exists). The error's text
// names the collection.
var ErrNoCollection = errors.New("no such collection")

// ErrClosed is returned by operations on a closed [Collection].
var ErrClosed = errors.New("chromastore: collection is closed")

// Config says which collection to open and how to reach it.
type Config struct {
	// URL is the Chroma server, such as http://localhost:8000 (a trailing
	// /api/v2 is accepted). Required.
	URL string
	// Collection is the collection's name. Required.
	Collection string
	// Tenant and Database default to "default_tenant" and
	// "default_database".
	Tenant, Database string
	// Embedding embeds the documents that Upsert writes (reads never embed).
	// Nil means the consistent-hash function ([HashEmbedding]), which
	// downloads nothing; see the package documentation.
	Embedding Embedder
	// Create creates the collection if it does not exist, recording
	// Embedding's name and configuration in the collection's configuration
	// (as Chroma's clients do) unless it is the consistent-hash function,
	// which Chroma's Python client would refuse to load, and its name under
	// EmbeddingKey in the collection's metadata.
	Create bool
	// HTTPClient sends the requests; nil means a client of this
	// collection's own (closed by Close).
	HTTPClient *http.Client
	// Headers are added to every request, for example
	// {"x-chroma-token": KEY} for Chroma Cloud.
	Headers map[string]string
	// Timeout bounds each HTTP request, from sending it to reading the
	// whole answer: DefaultTimeout if zero, no bound beyond the context's
	// if negative. A server that accepts connections but never answers
	// (a frozen process, a stuck proxy) then fails the call with an error
	// wrapping context.DeadlineExceeded instead of hanging it. An answer
	// of 429 or 5xx is retried (see the package documentation), each try
	// with its own Timeout.
	Timeout time.Duration
	// CloudLimits keeps every request within Chroma Cloud's limits: gets
	// of at most PageSize (300) records and $in lists of at most MaxIn
	// (200) values everywhere (Chunks and Search use larger pages on other
	// servers, because each page costs a pass over the collection), and
	// regexes of at most CloudMaxRegexBytes, which Limits reports so that
	// chromafs builds its coarse-filter regexes within it.
	CloudLimits bool
	// MaxConcurrent bounds the requests that this Collection has in
	// flight to Chroma at once; a request past it waits its turn, in
	// order of arrival, and fails when its context ends first (its error
	// then says it was waiting for a slot). Zero means CloudMaxConcurrent
	// with CloudLimits, no bound otherwise; negative means no bound.
	// Chroma Cloud allows 10 concurrent reads per collection: many
	// sessions of one serve process share one Collection, so the bound
	// keeps them within it instead of earning 429s.
	MaxConcurrent int
	// Observe, if not nil, is called as each request starts (once per
	// call, however many times it is retried) with the request's
	// RequestKind, and returns the context to send it under (a tracing
	// span's, say) and a function that the call calls once with the
	// call's error (nil on success) when it ends. It must be safe for
	// concurrent use and should be fast: metrics and traces, not work.
	Observe func(ctx context.Context, kind RequestKind) (context.Context, func(error))
}

// RequestKind says what a request to Chroma does, in a few values of
// bounded number (a metric's label, a span's name).
type RequestKind string

// The kinds of request that [Config.Observe] sees.
const (
	KindGetByID    RequestKind = "get_by_id"    // records by id (chunks, the tree)
	KindGetByWhere RequestKind = "get_by_where" // records by metadata (a page's chunks by slug, a tree by its id field)
	KindSearch     RequestKind = "search"       // records by text ($contains, $regex): the coarse filter, lexical search
	KindScan       RequestKind = "scan"         // records page by page with no filter
	KindQuery      RequestKind = "query"        // nearest records to a vector
	KindWrite      RequestKind = "write"        // upsert or delete of records
	KindCollection RequestKind = "collection"   // the collection itself: open, create, metadata, count, delete
)

// CloudMaxConcurrent is Config.MaxConcurrent's default under
// CloudLimits: Chroma Cloud's concurrent reads per collection.
const CloudMaxConcurrent = 10

// CloudMaxRegexBytes is Chroma Cloud's limit on the length of a $regex.
const CloudMaxRegexBytes = 256

// Collection is an open Chroma collection. It implements
// [collection.Store], [collection.Writer], [collection.IDReader],
// [collection.PartReader], [collection.RecordReader], [collection.Scanner],
// [collection.Searcher], [collection.VectorQuerier],
// [collection.TreeVersioner] and [collection.Limiter], and is safe for
// concurrent use.
type Collection struct {
	rest  *rest
	ef    Embedder
	id    string
	name  string
	where string // `"name" at URL`, for error messages
	path  string // /tenants/T/databases/D/collections/ID
	// byName is /tenants/T/databases/D/collections/NAME, where Chroma
	// looks collections up.
	byName string
	ownHC  *http.Client

	dim    atomic.Int64 // embedding dimension, 0 until known
	closed atomic.Bool
	cloud  bool // Config.CloudLimits

	mu   sync.Mutex
	meta map[string]any
	// opened is when Open looked the collection up; the first
	// TreeVersion within openFresh of it answers from that lookup
	// (zero once used).
	opened time.Time

	embedding EmbeddingSpec // from the collection's configuration
}

// normalize checks cfg and fills in its defaults.
func (cfg Config) normalize() (Config, string, error) {
	if cfg.URL == "" {
		return cfg, "", errors.New("chromastore: Config.URL is empty")
	}
	if cfg.Collection == "" {
		return cfg, "", errors.New("chromastore: Config.Collection is empty")
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, "", fmt.Errorf("chromastore: Config.URL %q is not an http(s) URL", cfg.URL)
	}
	base := strings.TrimRight(cfg.URL, "/")
	base = strings.TrimSuffix(base, "/api/v2")
	cfg.URL = strings.TrimRight(base, "/")
	if cfg.Tenant == "" {
		cfg.Tenant = DefaultTenant
	}
	if cfg.Database == "" {
		cfg.Database = DefaultDatabase
	}
	if cfg.Embedding == nil {
		cfg.Embedding = HashEmbedding(hashDim)
	}
	switch {
	case cfg.Timeout == 0:
		cfg.Timeout = DefaultTimeout
	case cfg.Timeout < 0:
		cfg.Timeout = 0 // rest: no per-request bound
	}
	return cfg, cfg.URL + "/api/v2", nil
}

// Validate reports what is wrong with cfg (a missing URL or collection, a
// URL that is not http(s)) without contacting the server, so that a
// caller that retries Open can tell a configuration it must not retry.
func (cfg Config) Validate() error {
	_, _, err := cfg.normalize()
	return err
}

// client builds the REST client.
func client(cfg Config, api string) (*rest, *http.Client) {
	var own *http.Client
	hc := cfg.HTTPClient
	if hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 2 * maxParallel
		own = &http.Client{Transport: t}
		hc = own
	}
	r := &rest{hc: hc, api: api, headers: maps.Clone(cfg.Headers), timeout: cfg.Timeout, observe: cfg.Observe}
	switch n := cfg.MaxConcurrent; {
	case n > 0:
		r.slots, r.maxSlots = semaphore.NewWeighted(int64(n)), n
	case n == 0 && cfg.CloudLimits:
		r.slots, r.maxSlots = semaphore.NewWeighted(CloudMaxConcurrent), CloudMaxConcurrent
	}
	return r, own
}

// collectionsPath is the path of cfg's database's collections.
func collectionsPath(cfg Config) string {
	return "/tenants/" + url.PathEscape(cfg.Tenant) + "/databases/" + url.PathEscape(cfg.Database) + "/collections"
}

// collectionModel is Chroma's description of a collection.
type collectionModel struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Metadata  metadata `json:"metadata"`
	Dimension *int64   `json:"dimension"`
	// Configuration is the collection's configuration_json: its index
	// (hnsw or spann, with the distance space) and the embedding function
	// its writer recorded.
	Configuration jsontext.Value `json:"configuration_json"`
	Tenant        string         `json:"tenant"`
	Database      string         `json:"database"`
}

// createRequest is the body of a collection creation, as chroma-go's
// CreateCollection sends it.
type createRequest struct {
	Name          string         `json:"name"`
	GetOrCreate   bool           `json:"get_or_create,omitempty"`
	Configuration map[string]any `json:"configuration,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
}

// Open opens the collection that cfg names, creating it if it is missing
// and cfg.Create is set. It makes one request (two when it creates).
//
// Collection lookup and creation are plain REST calls, as the record
// calls are: linking chroma-go's API client costs every process that
// imports this package milliseconds of initialisation, and the read
// path needs none of it.
func Open(ctx context.Context, cfg Config) (*Collection, error) {
	cfg, api, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	r, own := client(cfg, api)
	where := fmt.Sprintf("%q at %s", cfg.Collection, cfg.URL)
	var col collectionModel
	err = r.do(ctx, "GET", collectionsPath(cfg)+"/"+url.PathEscape(cfg.Collection), nil, &col)
	if err != nil && cfg.Create && noCollection(err) {
		req := createRequest{Name: cfg.Collection, GetOrCreate: true,
			Metadata: map[string]any{EmbeddingKey: cfg.Embedding.Name()}}
		if cfg.Embedding.Name() != hashName {
			// Recorded as chroma-go records it, so that Chroma's clients
			// can embed queries as the writer did. Chroma's Python client
			// refuses to open a collection whose configuration names an
			// embedding function it does not know, and it has no
			// consistent_hash: that one is not recorded.
			req.Configuration = map[string]any{"embedding_function": map[string]any{
				"type":   "known",
				"name":   cfg.Embedding.Name(),
				"config": cfg.Embedding.GetConfig(),
			}}
		}
		col = collectionModel{}
		err = r.do(ctx, "POST", collectionsPath(cfg), req, &col)
		if err != nil {
			if own != nil {
				own.CloseIdleConnections()
			}
			return nil, fmt.Errorf("chromastore: create collection %s: %w", where, err)
		}
	}
	if err != nil {
		if own != nil {
			own.CloseIdleConnections()
		}
		if noCollection(err) {
			return nil, fmt.Errorf("chromastore: open collection %s: %w (%w)", where, ErrNoCollection, err)
		}
		return nil, fmt.Errorf("chromastore: open collection %s: %w", where, err)
	}
	if col.ID == "" {
		if own != nil {
			own.CloseIdleConnections()
		}
		return nil, fmt.Errorf("chromastore: open collection %s: the answer names no collection id", where)
	}
	tenant, database := cmp.Or(col.Tenant, cfg.Tenant), cmp.Or(col.Database, cfg.Database)
	c := &Collection{
		rest:  r,
		ef:    cfg.Embedding,
		id:    col.ID,
		name:  cmp.Or(col.Name, cfg.Collection),
		where: where,
		path: "/tenants/" + url.PathEscape(tenant) +
			"/databases/" + url.PathEscape(database) +
			"/collections/" + url.PathEscape(col.ID),
		byName: collectionsPath(cfg) + "/" + url.PathEscape(cfg.Collection),
		ownHC:  own,
		meta:   collectionMetadata(col.Metadata),
		opened: time.Now(),
		cloud:  cfg.CloudLimits,
	}
	if col.Dimension != nil {
		c.dim.Store(*col.Dimension)
	}
	c.embedding = embeddingSpec(col.Configuration)
	return c, nil
}

// Limits implements collection.Limiter: with Config.CloudLimits, the
// longest regex and the longest $nin list a search may send; 0 (no
// limit) otherwise.
func (c *Collection) Limits() (maxRegexBytes, maxExcluded int) {
	if c.cloud {
		return CloudMaxRegexBytes, MaxIn
	}
	return 0, 0
}

// chunksPage, searchPage and searchMaxIn are the page sizes and $in
// batch of Chunks and Search: PageSize and MaxIn under CloudLimits.
func (c *Collection) chunksPage() int {
	if c.cloud {
		return PageSize
	}
	return chunksPageSize
}

func (c *Collection) searchPage() int {
	if c.cloud {
		return PageSize
	}
	return searchPageSize
}

func (c *Collection) searchMaxIn() int {
	if c.cloud {
		return MaxIn
	}
	return SearchMaxIn
}

// DeleteCollection deletes the collection that cfg names. Deleting a
// missing collection returns an error wrapping [ErrNoCollection].
func DeleteCollection(ctx context.Context, cfg Config) error {
	cfg, api, err := cfg.normalize()
	if err != nil {
		return err
	}
	r, own := client(cfg, api)
	if own != nil {
		defer own.CloseIdleConnections()
	}
	err = r.do(ctx, "DELETE", collectionsPath(cfg)+"/"+url.PathEscape(cfg.Collection), nil, nil)
	if err != nil {
		where := fmt.Sprintf("%q at %s", cfg.Collection, cfg.URL)
		if noCollection(err) {
			return fmt.Errorf("chromastore: delete collection %s: %w (%w)", where, ErrNoCollection, err)
		}
		return fmt.Errorf("chromastore: delete collection %s: %w", where, err)
	}
	return nil
}

// Close releases the collection's idle connections. Operations after
// Close return [ErrClosed]. Close does not close Config.Embedding or
// Config.HTTPClient, which belong to the caller.
func (c *Collection) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	if c.ownHC != nil {
		c.ownHC.CloseIdleConnections()
	}
	return nil
}

// Name returns the collection's name.
func (c *Collection) Name() string { return c.name }

// CollectionID returns the collection's id, a UUID that changes when a
// collection is deleted and created again under the same name.
func (c *Collection) CollectionID() string { return c.id }

// Metadata returns a copy of the collection's metadata as of Open or the
// last SetMetadata: strings, bools, int64s and float64s (and, on servers
// that support them, slices of those). It may be nil.
func (c *Collection) Metadata() map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.meta)
}

// openFresh is how long after Open the first TreeVersion takes Open's
// answer instead of asking again: a command that opens a filesystem right
// away (New asks for the version to use the compact tree index) would
// otherwise send the same lookup twice in a few milliseconds.
const openFresh = time.Second

// TreeVersion implements collection.TreeVersioner: it looks the collection
// up again (one request) and returns its collection.TreeVersionKey
// metadata, or "" if it has none. The first call within a second of Open
// answers from Open's lookup without a request; later calls always ask.
func (c *Collection) TreeVersion(ctx context.Context) (string, error) {
	c.mu.Lock()
	opened := c.opened
	c.opened = time.Time{}
	if !opened.IsZero() && time.Since(opened) < openFresh && !c.closed.Load() {
		v, _ := c.meta[collection.TreeVersionKey].(string)
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	md, err := c.currentMetadata(ctx, "read metadata of collection "+c.where)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.meta = md
	c.mu.Unlock()
	v, _ := md[collection.TreeVersionKey].(string)
	return v, nil
}

// currentMetadata looks the collection up again and returns its metadata.
func (c *Collection) currentMetadata(ctx context.Context, op string) (map[string]any, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	var cur collectionModel
	if err := c.rest.do(ctx, "GET", c.byName, nil, &cur); err != nil {
		return nil, c.fail(op, err)
	}
	return collectionMetadata(cur.Metadata), nil
}

// SetMetadata sets the given keys of the collection's metadata and keeps
// the others; a nil value removes its key. It reads the current metadata
// first, so concurrent writers can lose each other's keys. Chroma refuses
// to store an empty metadata map: removing every key is an error. A key
// that [CheckMetadataKey] refuses, and an array value (Chroma 1.0 answers
// 422 to one in collection metadata, and 1.3.4 drops the connection: its
// request handler panics), fail the call before any request.
func (c *Collection) SetMetadata(ctx context.Context, set map[string]any) error {
	op := "set metadata of collection " + c.where
	for k, v := range set {
		if err := CheckMetadataKey(k); err != nil {
			return fmt.Errorf("chromastore: %s: %w", op, err)
		}
		if isArray(v) {
			return fmt.Errorf("chromastore: %s: metadata %q is an array (%T): Chroma stores arrays in record metadata (1.3 on), never in collection metadata", op, k, v)
		}
	}
	merged, err := c.currentMetadata(ctx, op)
	if err != nil {
		return err
	}
	if merged == nil {
		merged = map[string]any{}
	}
	for k, v := range set {
		if v == nil {
			delete(merged, k)
		} else {
			merged[k] = v
		}
	}
	md, err := metadataJSON(merged)
	if err != nil {
		return fmt.Errorf("chromastore: %s: %w", op, err)
	}
	body := append(append([]byte(`{"new_metadata":`), md...), '}')
	if err := c.rest.do(ctx, "PUT", c.path, body, nil); err != nil {
		return c.fail(op, err)
	}
	c.mu.Lock()
	c.meta = merged
	c.mu.Unlock()
	return nil
}

// Count returns the number of records in the collection.
func (c *Collection) Count(ctx context.Context) (int, error) {
	if c.closed.Load() {
		return 0, ErrClosed
	}
	var n int
	if err := c.rest.do(ctx, "GET", c.path+"/count", nil, &n); err != nil {
		return 0, c.fail("count records of "+c.where, err)
	}
	return n, nil
}

// fail wraps the error of op.
func (c *Collection) fail(op string, err error) error {
	if errors.Is(err, ErrClosed) {
		return err
	}
	if noCollection(err) {
		return fmt.Errorf("chromastore: %s: %w (%w)", op, ErrNoCollection, err)
	}
	return fmt.Errorf("chromastore: %s: %w", op, err)
}

// collectionMetadata converts a collection's metadata as decoded
// (numbers as json.Number, arrays as []any) into a plain map: strings,
// bools, int64s, float64s, and slices of one of those. Values of other
// kinds are left out.
func collectionMetadata(md metadata) map[string]any {
	if len(md) == 0 {
		return nil
	}
	out := make(map[string]any, len(md))
	for k, v := range md {
		if v, ok := scalarValue(v); ok {
			out[k] = v
			continue
		}
		if a, ok := v.([]any); ok {
			if v, ok := arrayValue(a); ok {
				out[k] = v
			}
		}
	}
	return out
}

// scalarValue converts a decoded string, bool or number: a number is an
// int64 if it parses as one, else a float64.
func scalarValue(v any) (any, bool) {
	switch v := v.(type) {
	case string, bool:
		return v, true
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n, true
		}
		if f, err := v.Float64(); err == nil {
			return f, true
		}
	}
	return nil, false
}

// arrayValue converts a decoded array whose elements are all of one
// kind into a typed slice: []string, []bool, []int64, or []float64 (when
// any number is not an int64).
func arrayValue(a []any) (any, bool) {
	if len(a) == 0 {
		return nil, false
	}
	switch a[0].(type) {
	case string:
		return typedArray[string](a)
	case bool:
		return typedArray[bool](a)
	case json.Number:
		ints := make([]int64, 0, len(a))
		for _, e := range a {
			n, ok := e.(json.Number)
			if !ok {
				return nil, false
			}
			i, err := n.Int64()
			if err != nil {
				floats := make([]float64, len(a))
				for j, e := range a {
					n, _ := e.(json.Number)
					f, err := n.Float64()
					if err != nil {
						return nil, false
					}
					floats[j] = f
				}
				return floats, true
			}
			ints = append(ints, i)
		}
		return ints, true
	}
	return nil, false
}

func typedArray[T any](a []any) (any, bool) {
	out := make([]T, len(a))
	for i, e := range a {
		v, ok := e.(T)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// CheckMetadataKey returns an error for a metadata key that Chroma 1.3
// refuses, in record and in collection metadata: the empty key, and keys
// starting with '#' or '$' (reserved for Chroma's own keys, such as
// #document and #embedding in a collection's schema, and for operators).
// Chroma 1.0 stores them; chromastore refuses them on every server, so
// that what it writes reads the same from both. Chroma 1.3's own answer
// to a record's key does not name it ("Invalid metadata at index 0").
func CheckMetadataKey(k string) error {
	switch {
	case k == "":
		return errors.New("an empty metadata key: Chroma 1.3 refuses it")
	case k[0] == '#' || k[0] == '$':
		return fmt.Errorf("metadata key %q starts with %q, which Chroma 1.3 reserves for its own keys and operators and refuses: choose another name", k, k[:1])
	}
	return nil
}

// isArray reports whether v is a metadata array as metadataValue accepts
// one.
func isArray(v any) bool {
	switch v.(type) {
	case []string, []int64, []bool, []float64, []any:
		return true
	}
	return false
}

// metadataJSON encodes collection metadata for Chroma, accepting what
// chroma-go's strict conversion accepts: strings, bools, ints, floats
// (sent in exponent form, so that 1.0 stays a float), json.Numbers, and
// non-empty slices of one of those. Anything else (nil included) is an
// error.
func metadataJSON(md map[string]any) ([]byte, error) {
	out := make(map[string]any, len(md))
	for k, v := range md {
		var err error
		if out[k], err = metadataValue(v); err != nil {
			return nil, fmt.Errorf("metadata %q: %w", k, err)
		}
	}
	return json.Marshal(out)
}

// floatJSON is a float64 that encodes in exponent form.
type floatJSON float64

func (f floatJSON) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
		return nil, fmt.Errorf("%v is not a JSON number", float64(f))
	}
	return strconv.AppendFloat(nil, float64(f), 'e', -1, 64), nil
}

func metadataValue(v any) (any, error) {
	switch v := v.(type) {
	case string, bool, int64:
		return v, nil
	case int:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case float64:
		return floatJSON(v), nil
	case float32:
		return floatJSON(v), nil
	case json.Number:
		if !strings.ContainsAny(string(v), ".eE") {
			n, err := v.Int64()
			if err != nil {
				return nil, fmt.Errorf("invalid int value %v", v)
			}
			return n, nil
		}
		f, err := v.Float64()
		if err != nil {
			return nil, fmt.Errorf("invalid float value %v", v)
		}
		return floatJSON(f), nil
	case []string, []int64, []bool:
		if reflectLen(v) == 0 {
			return nil, errors.New("metadata arrays must be non-empty")
		}
		return v, nil
	case []float64:
		if len(v) == 0 {
			return nil, errors.New("metadata arrays must be non-empty")
		}
		out := make([]floatJSON, len(v))
		for i, f := range v {
			out[i] = floatJSON(f)
		}
		return out, nil
	case []any:
		a, ok := arrayValue(v)
		if !ok {
			// Values as Go code builds them: ints and float64s, not
			// json.Numbers.
			a, ok = goArray(v)
		}
		if !ok {
			return nil, errors.New("metadata arrays must be non-empty, flat, and of one type")
		}
		return metadataValue(a)
	case nil:
		return nil, errors.New("null is not supported")
	}
	return nil, fmt.Errorf("invalid metadata value type %T", v)
}

// goArray converts a non-empty []any of ints or of float64s.
func goArray(a []any) (any, bool) {
	if len(a) == 0 {
		return nil, false
	}
	switch a[0].(type) {
	case int:
		ints := make([]int64, len(a))
		for i, e := range a {
			n, ok := e.(int)
			if !ok {
				return nil, false
			}
			ints[i] = int64(n)
		}
		return ints, true
	case int64:
		return typedArray[int64](a)
	case float64:
		return typedArray[float64](a)
	}
	return nil, false
}

func reflectLen(v any) int {
	switch v := v.(type) {
	case []string:
		return len(v)
	case []int64:
		return len(v)
	case []bool:
		return len(v)
	}
	return 0
}
