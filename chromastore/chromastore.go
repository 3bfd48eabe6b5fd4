package chromastore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v2 "github.com/amikos-tech/chroma-go/pkg/api/v2"
	"github.com/amikos-tech/chroma-go/pkg/embeddings"

	"github.com/chromafs/chromafs"
)

// Compile-time checks that *Collection is a complete store.
var (
	_ chromafs.Store    = (*Collection)(nil)
	_ chromafs.IDReader = (*Collection)(nil)
	_ chromafs.Scanner  = (*Collection)(nil)
	_ chromafs.Writer   = (*Collection)(nil)
	_ chromafs.Searcher = (*Collection)(nil)
)

// Defaults of [Config].
const (
	DefaultTenant   = "default_tenant"
	DefaultDatabase = "default_database"
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
	// Nil means chroma-go's consistent-hash function, which downloads
	// nothing; see the package documentation.
	Embedding embeddings.EmbeddingFunction
	// Create creates the collection if it does not exist, recording
	// Embedding's name and configuration in the collection's configuration
	// (as Chroma's clients do) unless it is the consistent-hash function,
	// which Chroma's Python client would refuse to load.
	Create bool
	// HTTPClient sends the requests; nil means a client of this
	// collection's own (closed by Close).
	HTTPClient *http.Client
	// Headers are added to every request, for example
	// {"x-chroma-token": KEY} for Chroma Cloud.
	Headers map[string]string
	// Timeout bounds each HTTP request; 0 means no bound beyond the
	// context's.
	Timeout time.Duration
	// CloudLimits keeps every request within Chroma Cloud's limits: gets
	// of at most PageSize (300) records and $in lists of at most MaxIn
	// (200) values everywhere (Chunks and Search use larger pages on other
	// servers, because each page costs a pass over the collection), and
	// regexes of at most CloudMaxRegexBytes, which Limits reports so that
	// chromafs builds its coarse-filter regexes within it.
	CloudLimits bool
}

// CloudMaxRegexBytes is Chroma Cloud's limit on the length of a $regex.
const CloudMaxRegexBytes = 256

// Collection is an open Chroma collection. It implements
// [chromafs.Store], [chromafs.IDReader], [chromafs.Scanner] and
// [chromafs.Writer], and is safe for concurrent use.
type Collection struct {
	rest  *rest
	ef    embeddings.EmbeddingFunction
	col   v2.Collection
	cli   v2.Client
	name  string
	where string // `"name" at URL`, for error messages
	path  string // /tenants/T/databases/D/collections/ID
	ownHC *http.Client

	dim    atomic.Int64 // embedding dimension, 0 until known
	closed atomic.Bool
	cloud  bool // Config.CloudLimits

	mu   sync.Mutex
	meta map[string]any
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
		cfg.Embedding = embeddings.NewConsistentHashEmbeddingFunction()
	}
	if cfg.Timeout < 0 {
		return cfg, "", fmt.Errorf("chromastore: Config.Timeout %v is negative", cfg.Timeout)
	}
	return cfg, cfg.URL + "/api/v2", nil
}

// client builds the chroma-go client and the REST client that share one
// HTTP client.
func client(cfg Config, api string) (v2.Client, *rest, *http.Client, error) {
	var own *http.Client
	hc := cfg.HTTPClient
	if hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 2 * maxParallel
		own = &http.Client{Transport: t}
		hc = own
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	wrapped := *hc
	wrapped.Transport = causeTransport{base: base}
	opts := []v2.ClientOption{
		v2.WithBaseURL(api),
		v2.WithDatabaseAndTenant(cfg.Database, cfg.Tenant),
		v2.WithHTTPClient(&wrapped),
	}
	if len(cfg.Headers) > 0 {
		opts = append(opts, v2.WithDefaultHeaders(cfg.Headers))
	}
	cli, err := v2.NewHTTPClient(opts...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("chromastore: %w", err)
	}
	r := &rest{hc: &wrapped, api: api, headers: maps.Clone(cfg.Headers), timeout: cfg.Timeout}
	return cli, r, own, nil
}

// Open opens the collection that cfg names, creating it if it is missing
// and cfg.Create is set. It makes one request (two when it creates).
func Open(ctx context.Context, cfg Config) (*Collection, error) {
	cfg, api, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	cli, r, own, err := client(cfg, api)
	if err != nil {
		return nil, err
	}
	where := fmt.Sprintf("%q at %s", cfg.Collection, cfg.URL)
	var col v2.Collection
	err = r.viaChromaGo(ctx, func(ctx context.Context) error {
		var err error
		col, err = cli.GetCollection(ctx, cfg.Collection, v2.WithEmbeddingFunctionGet(cfg.Embedding))
		return err
	})
	if err != nil && cfg.Create && noCollection(err) {
		opts := []v2.CreateCollectionOption{v2.WithEmbeddingFunctionCreate(cfg.Embedding), v2.WithIfNotExistsCreate()}
		if cfg.Embedding.Name() == hashName {
			// Chroma's Python client refuses to open a collection whose
			// configuration names an embedding function it does not know,
			// and it has no consistent_hash.
			opts = append(opts, v2.WithDisableEFConfigStorage())
		}
		err = r.viaChromaGo(ctx, func(ctx context.Context) error {
			var err error
			col, err = cli.CreateCollection(ctx, cfg.Collection, opts...)
			return err
		})
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
	c := &Collection{
		rest:  r,
		ef:    cfg.Embedding,
		col:   col,
		cli:   cli,
		name:  col.Name(),
		where: where,
		path: "/tenants/" + url.PathEscape(col.Tenant().Name()) +
			"/databases/" + url.PathEscape(col.Database().Name()) +
			"/collections/" + url.PathEscape(col.ID()),
		ownHC: own,
		meta:  fromCollectionMetadata(col.Metadata()),
		cloud: cfg.CloudLimits,
	}
	c.dim.Store(int64(col.Dimension()))
	return c, nil
}

// Limits implements chromafs.Limiter: with Config.CloudLimits, the
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
	cli, r, own, err := client(cfg, api)
	if err != nil {
		return err
	}
	if own != nil {
		defer own.CloseIdleConnections()
	}
	err = r.viaChromaGo(ctx, func(ctx context.Context) error {
		return cli.DeleteCollection(ctx, cfg.Collection)
	})
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
func (c *Collection) CollectionID() string { return c.col.ID() }

// Metadata returns a copy of the collection's metadata as of Open or the
// last SetMetadata: strings, bools, int64s and float64s (and, on servers
// that support them, slices of those). It may be nil.
func (c *Collection) Metadata() map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.meta)
}

// TreeVersion implements chromafs.TreeVersioner: it looks the collection
// up again (one request) and returns its chromafs.TreeVersionKey
// metadata, or "" if it has none.
func (c *Collection) TreeVersion(ctx context.Context) (string, error) {
	md, err := c.currentMetadata(ctx, "read metadata of collection "+c.where)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.meta = md
	c.mu.Unlock()
	v, _ := md[chromafs.TreeVersionKey].(string)
	return v, nil
}

// currentMetadata looks the collection up again and returns its metadata.
func (c *Collection) currentMetadata(ctx context.Context, op string) (map[string]any, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	var cur v2.Collection
	err := c.rest.viaChromaGo(ctx, func(ctx context.Context) error {
		var err error
		cur, err = c.cli.GetCollection(ctx, c.name, v2.WithEmbeddingFunctionGet(c.ef))
		return err
	})
	if err != nil {
		return nil, c.fail(op, err)
	}
	return fromCollectionMetadata(cur.Metadata()), nil
}

// SetMetadata sets the given keys of the collection's metadata and keeps
// the others; a nil value removes its key. It reads the current metadata
// first, so concurrent writers can lose each other's keys. Chroma refuses
// to store an empty metadata map: removing every key is an error.
func (c *Collection) SetMetadata(ctx context.Context, set map[string]any) error {
	op := "set metadata of collection " + c.where
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
	md, err := v2.NewMetadataFromMapStrict(merged)
	if err != nil {
		return fmt.Errorf("chromastore: %s: %w", op, err)
	}
	err = c.rest.viaChromaGo(ctx, func(ctx context.Context) error {
		return c.col.ModifyMetadata(ctx, md)
	})
	if err != nil {
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
	err := c.rest.viaChromaGo(ctx, func(ctx context.Context) error {
		var err error
		n, err = c.col.Count(ctx)
		return err
	})
	if err != nil {
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

// fromCollectionMetadata converts chroma-go's metadata into a plain map.
func fromCollectionMetadata(md v2.CollectionMetadata) map[string]any {
	if md == nil || len(md.Keys()) == 0 {
		return nil
	}
	out := make(map[string]any, len(md.Keys()))
	for _, k := range md.Keys() {
		if v, ok := md.GetString(k); ok {
			out[k] = v
		} else if v, ok := md.GetBool(k); ok {
			out[k] = v
		} else if v, ok := md.GetInt(k); ok {
			out[k] = v
		} else if v, ok := md.GetFloat(k); ok {
			out[k] = v
		} else if v, ok := md.GetStringArray(k); ok {
			out[k] = v
		} else if v, ok := md.GetIntArray(k); ok {
			out[k] = v
		} else if v, ok := md.GetFloatArray(k); ok {
			out[k] = v
		} else if v, ok := md.GetBoolArray(k); ok {
			out[k] = v
		}
	}
	return out
}
