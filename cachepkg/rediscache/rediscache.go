// Package rediscache is a [cachepkg.Cache] on a Redis server, shared by
// every process that uses the same server and key prefix. It lives apart
// from cachepkg so that only the programs that use Redis link go-redis.
//
// [New] dials a redis:// URL with settings tuned for a cache (fail fast,
// one dial a call, a pool sized for many concurrent readers); [NewClient]
// wraps a go-redis client that the caller configured and owns.
package rediscache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/chromafs/chromafs/cachepkg"
)

// Defaults of [Options].
const (
	DefaultPrefix  = "chromafs:"
	DefaultTTL     = 24 * time.Hour
	DefaultTimeout = 500 * time.Millisecond
	DefaultBackoff = time.Second
)

// Options configure [New] and [NewClient]. The zero value takes every
// default.
type Options struct {
	// Prefix namespaces the keys (DefaultPrefix if empty), so that
	// several applications can share a server and Clear removes only
	// this cache's keys.
	Prefix string
	// TTL is how long an entry lives (DefaultTTL if zero; no expiry if
	// negative). Entries are never stale (keys carry the page's
	// version), so the TTL only bounds the memory of old versions.
	TTL time.Duration
	// Timeout bounds each call when the context has no earlier deadline
	// (DefaultTimeout if zero): a slow cache must not slow reads down
	// more than a miss would. A batch gets 50 µs more per key. With
	// [New] it is also the client's dial, read and write timeout; a
	// client given to [NewClient] keeps its own, and honours the
	// per-call deadline only with ContextTimeoutEnabled.
	Timeout time.Duration
	// Backoff is how long calls fail fast with [cachepkg.ErrUnavailable]
	// after one found the server unreachable (DefaultBackoff if zero);
	// the first call after it tries the server again.
	Backoff time.Duration
	// Logger, when set, is told of each failure episode once: a warning
	// when a call finds the server unreachable after it worked (or at
	// the first call), naming the server and the error, and an info line
	// when it answers again. The cachepkg.Cache methods (Get, Put, Has,
	// GetMany, PutMany) then report failures as misses, with a nil
	// error, so that their callers do not log them again; Ping and Clear
	// still return errors. It also receives go-redis's own log lines, at
	// debug level: go-redis has one logger per process (redis.SetLogger),
	// so the last New or NewClient given a Logger sets it.
	Logger *slog.Logger
}

// Cache is a [cachepkg.Cache] on a Redis server. Batch operations are
// pipelined (MGET and pipelined SETs, batchSize keys at a time). It
// reports every failure as an error (a cache is an optimisation; chromafs
// treats an error as a miss and logs it), or, with Options.Logger, logs
// one warning per failure episode and reports failures as misses; after a
// network failure it fails fast with errors wrapping
// [cachepkg.ErrUnavailable] for Options.Backoff instead of making every
// read wait for a dead server. It is safe for concurrent use.
type Cache struct {
	c       redis.UniversalClient
	own     bool
	addrs   string // the server, for messages
	prefix  string
	ttl     time.Duration
	timeout time.Duration
	backoff time.Duration
	log     *slog.Logger // Options.Logger
	// down is 0 while the server works, else the unix nanoseconds until
	// which calls fail fast; it stays non-zero (the episode goes on) until
	// a call succeeds.
	down atomic.Int64
}

var _ cachepkg.Cache = (*Cache)(nil)

// New returns a cache on the server that url names, as redis.ParseURL
// reads it: redis://[user:password@]host:port[/db], or rediss:// for
// TLS. It makes the client, which Close closes, with settings for a
// cache: no retries, one dial a call, Options.Timeout as the dial, read
// and write timeout, context deadlines honoured, and a pool of at least
// 64 connections. It does not contact the server: an unreachable server
// shows up as errors from the cache's methods (and Ping).
func New(url string, opt Options) (*Cache, error) {
	if url == "" {
		return nil, errors.New("rediscache: no server URL (want redis://host:port[/db])")
	}
	ro, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("rediscache: server URL %q: %w", url, err)
	}
	r := newCache(opt)
	// Fail fast: the cache is an optimisation, and a read that waits
	// for a dead server is slower than a miss.
	ro.MaxRetries = -1
	// One dial a call: go-redis's default of 5, 100 ms apart, makes a
	// read wait 400 ms for a refused connection.
	ro.DialerRetries = 1
	ro.DialTimeout = r.timeout
	ro.ReadTimeout = r.timeout
	ro.WriteTimeout = r.timeout
	ro.ContextTimeoutEnabled = true
	// Many sessions read at once (a server, a grep's prefetch): a larger
	// pool than go-redis's 10 per CPU keeps them from queueing for a
	// connection until their deadline.
	ro.PoolSize = max(ro.PoolSize, 64)
	r.c, r.own, r.addrs = redis.NewClient(ro), true, ro.Addr
	return r, nil
}

// NewClient returns a cache on c, a client that the caller made and
// owns: Close leaves it open. The client's own settings (retries,
// timeouts, pool) apply; for a cache, fail-fast settings like those of
// [New] are advisable. Only single-server clients (*redis.Client,
// including failover clients) are tested; keys of a batch may fall in
// different hash slots, which a cluster may refuse.
func NewClient(c redis.UniversalClient, opt Options) (*Cache, error) {
	if c == nil {
		return nil, errors.New("rediscache: NewClient needs a client, got nil")
	}
	r := newCache(opt)
	r.c = c
	if rc, ok := c.(*redis.Client); ok {
		r.addrs = rc.Options().Addr
	} else {
		r.addrs = fmt.Sprintf("%T", c)
	}
	return r, nil
}

// newCache applies opt's defaults and routes go-redis's log lines.
func newCache(opt Options) *Cache {
	r := &Cache{prefix: opt.Prefix, ttl: opt.TTL, timeout: opt.Timeout, backoff: opt.Backoff, log: opt.Logger}
	if r.prefix == "" {
		r.prefix = DefaultPrefix
	}
	switch {
	case r.ttl == 0:
		r.ttl = DefaultTTL
	case r.ttl < 0:
		r.ttl = 0 // go-redis: no expiry
	}
	if r.timeout <= 0 {
		r.timeout = DefaultTimeout
	}
	if r.backoff <= 0 {
		r.backoff = DefaultBackoff
	}
	if r.log != nil {
		redis.SetLogger(redisLogger{r.log})
	}
	return r
}

// redisLogger passes go-redis's log lines to a slog.Logger at debug
// level: what they say (a failed dial, a closed pool) is in the errors
// that the cache reports once per episode.
type redisLogger struct{ l *slog.Logger }

func (rl redisLogger) Printf(ctx context.Context, format string, v ...any) {
	if rl.l.Enabled(ctx, slog.LevelDebug) {
		rl.l.DebugContext(ctx, "go-redis: "+strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: "))
	}
}

// quiet is what a Cache method returns for err: nil (a miss) when a
// Logger reports failures, else err.
func (r *Cache) quiet(err error) error {
	if r.log != nil {
		return nil
	}
	return err
}

// Close closes the client that New made; it leaves open a client given
// to NewClient.
func (r *Cache) Close() error {
	if r.own {
		return r.c.Close()
	}
	return nil
}

// Ping checks that the server answers.
func (r *Cache) Ping(ctx context.Context) error {
	ctx, cancel, err := r.begin(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	return r.done("ping", r.c.Ping(ctx).Err())
}

// begin applies the timeout, or fails fast while the server is deemed
// down.
func (r *Cache) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	return r.beginN(ctx, 1)
}

// beginN is begin for a batch of n keys, whose timeout grows by 50 µs a
// key (a pipeline of 512 pages gets 25 ms more than one GET).
func (r *Cache) beginN(ctx context.Context, n int) (context.Context, context.CancelFunc, error) {
	if until := r.down.Load(); until != 0 && time.Now().UnixNano() < until {
		return nil, nil, fmt.Errorf("rediscache: redis %s: %w (retrying after %s)", r.addrs, cachepkg.ErrUnavailable, time.Unix(0, until).Format(time.RFC3339Nano))
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout+time.Duration(n)*50*time.Microsecond)
	return ctx, cancel, nil
}

// done wraps err, and marks the server down after an error that is not
// the caller's own cancellation.
// With a Logger, the first failure of an episode is logged as a warning
// and the success that ends it as info.
func (r *Cache) done(op string, err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		if r.down.Swap(0) != 0 && r.log != nil {
			r.log.Info("chromafs: redis cache answers again", "addr", r.addrs)
		}
		return nil
	}
	err = fmt.Errorf("rediscache: redis %s at %s: %w", op, r.addrs, err)
	if !errors.Is(err, context.Canceled) {
		if r.down.Swap(time.Now().Add(r.backoff).UnixNano()) == 0 && r.log != nil {
			r.log.Warn("chromafs: redis cache unreachable; reading pages from the store until it answers again",
				"addr", r.addrs, "err", err)
		}
	}
	return err
}

func (r *Cache) key(k string) string { return r.prefix + k }

// Get implements cachepkg.Cache.
func (r *Cache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	ctx, cancel, err := r.begin(ctx)
	if err != nil {
		return nil, false, r.quiet(err)
	}
	defer cancel()
	v, err := r.c.Get(ctx, r.key(key)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, r.done("get", nil)
	}
	if err != nil {
		return nil, false, r.quiet(r.done("get", err))
	}
	return v, true, r.done("get", nil)
}

// Put implements cachepkg.Cache.
func (r *Cache) Put(ctx context.Context, key string, value []byte) error {
	ctx, cancel, err := r.begin(ctx)
	if err != nil {
		return r.quiet(err)
	}
	defer cancel()
	return r.quiet(r.done("set", r.c.Set(ctx, r.key(key), value, r.ttl).Err()))
}

// Has implements cachepkg.Cache.
func (r *Cache) Has(ctx context.Context, key string) (bool, error) {
	ctx, cancel, err := r.begin(ctx)
	if err != nil {
		return false, r.quiet(err)
	}
	defer cancel()
	n, err := r.c.Exists(ctx, r.key(key)).Result()
	return n > 0, r.quiet(r.done("exists", err))
}

// batchSize is the most keys one MGET or pipeline carries.
const batchSize = 512

// GetMany implements cachepkg.Cache with MGET, batchSize keys at a time.
func (r *Cache) GetMany(ctx context.Context, keys []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(keys))
	for i := 0; i < len(keys); i += batchSize {
		batch := keys[i:min(i+batchSize, len(keys))]
		full := make([]string, len(batch))
		for j, k := range batch {
			full[j] = r.key(k)
		}
		cctx, cancel, err := r.beginN(ctx, len(batch))
		if err != nil {
			return out, r.quiet(err)
		}
		vals, err := r.c.MGet(cctx, full...).Result()
		cancel()
		if err != nil {
			return out, r.quiet(r.done("mget", err))
		}
		for j, v := range vals {
			if s, ok := v.(string); ok {
				out[batch[j]] = []byte(s)
			}
		}
		_ = r.done("mget", nil)
	}
	return out, nil
}

// PutMany implements cachepkg.Cache with pipelined SETs, batchSize at a
// time.
func (r *Cache) PutMany(ctx context.Context, values map[string][]byte) error {
	pipe := r.c.Pipeline()
	flush := func() error {
		if pipe.Len() == 0 {
			return nil
		}
		cctx, cancel, err := r.beginN(ctx, pipe.Len())
		if err != nil {
			pipe.Discard()
			return err
		}
		defer cancel()
		_, err = pipe.Exec(cctx)
		return r.done("pipelined set", err)
	}
	for k, v := range values {
		pipe.Set(ctx, r.key(k), v, r.ttl)
		if pipe.Len() >= batchSize {
			if err := flush(); err != nil {
				return r.quiet(err)
			}
		}
	}
	return r.quiet(flush())
}

// Clear implements cachepkg.Cache: it deletes the keys under the prefix
// (SCAN and UNLINK), leaving the rest of the server alone.
func (r *Cache) Clear(ctx context.Context) error {
	var cursor uint64
	for {
		cctx, cancel, err := r.begin(ctx)
		if err != nil {
			return err
		}
		keys, next, err := r.c.Scan(cctx, cursor, r.prefix+"*", 1000).Result()
		if err == nil && len(keys) > 0 {
			err = r.c.Unlink(cctx, keys...).Err()
		}
		cancel()
		if err := r.done("clear", err); err != nil {
			return err
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}
