package cachepkg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Defaults of [RedisOptions].
const (
	DefaultRedisPrefix  = "chromafs:"
	DefaultRedisTTL     = 24 * time.Hour
	DefaultRedisTimeout = 500 * time.Millisecond
	DefaultRedisBackoff = time.Second
)

// ErrUnavailable is wrapped by the errors a Redis cache returns without
// trying the server, because a recent call found it unreachable (see
// RedisOptions.Backoff).
var ErrUnavailable = errors.New("cache server unavailable")

// RedisOptions configure [NewRedis].
type RedisOptions struct {
	// URL is the server, as redis.ParseURL reads it:
	// redis://[user:password@]host:port[/db], or rediss:// for TLS.
	URL string
	// Client is used instead of dialling URL when set; the caller then
	// owns it and Close leaves it open.
	Client *redis.Client
	// Prefix namespaces the keys (DefaultRedisPrefix if empty), so that
	// several applications can share a server and Clear removes only
	// this cache's keys.
	Prefix string
	// TTL is how long an entry lives (DefaultRedisTTL if zero; no expiry
	// if negative). Entries are never stale (keys carry the page's
	// version), so the TTL only bounds the memory of old versions.
	TTL time.Duration
	// Timeout bounds each call when the context has no earlier deadline
	// (DefaultRedisTimeout if zero): a slow cache must not slow reads
	// down more than a miss would.
	Timeout time.Duration
	// Backoff is how long calls fail fast with ErrUnavailable after one
	// found the server unreachable (DefaultRedisBackoff if zero); the
	// first call after it tries the server again.
	Backoff time.Duration
	// Logger, when set, is told of each failure episode once: a warning
	// when a call finds the server unreachable after it worked (or at
	// the first call), naming the server and the error, and an info line
	// when it answers again. The Cache methods (Get, Put, Has, GetMany,
	// PutMany) then report failures as misses, with a nil error, so that
	// their callers do not log them again; Ping and Clear still return
	// errors. It also receives go-redis's own log lines, at debug level:
	// go-redis has one logger per process (redis.SetLogger), so the last
	// NewRedis given a Logger sets it.
	Logger *slog.Logger
}

// Redis is a cache on a Redis server, shared by every process that uses
// the same server and prefix. Batch operations are pipelined. It reports
// every failure as an error (a cache is an optimisation; chromafs treats
// an error as a miss and logs it), or, with RedisOptions.Logger, logs one
// warning per failure episode and reports failures as misses; after a
// network failure it fails fast for a while instead of making every read
// wait for a dead server.
type Redis struct {
	c       *redis.Client
	own     bool
	prefix  string
	ttl     time.Duration
	timeout time.Duration
	backoff time.Duration
	log     *slog.Logger // RedisOptions.Logger
	// down is 0 while the server works, else the unix nanoseconds until
	// which calls fail fast; it stays non-zero (the episode goes on) until
	// a call succeeds.
	down atomic.Int64
}

var _ Cache = (*Redis)(nil)

// NewRedis returns a cache on the server that opt names. It does not
// contact the server: an unreachable server shows up as errors from the
// cache's methods (and Ping).
func NewRedis(opt RedisOptions) (*Redis, error) {
	r := &Redis{
		c: opt.Client, prefix: opt.Prefix, ttl: opt.TTL, timeout: opt.Timeout, backoff: opt.Backoff,
		log: opt.Logger,
	}
	if r.prefix == "" {
		r.prefix = DefaultRedisPrefix
	}
	switch {
	case r.ttl == 0:
		r.ttl = DefaultRedisTTL
	case r.ttl < 0:
		r.ttl = 0 // go-redis: no expiry
	}
	if r.timeout <= 0 {
		r.timeout = DefaultRedisTimeout
	}
	if r.backoff <= 0 {
		r.backoff = DefaultRedisBackoff
	}
	if r.c == nil {
		if opt.URL == "" {
			return nil, errors.New("cachepkg: RedisOptions needs a URL or a Client")
		}
		ro, err := redis.ParseURL(opt.URL)
		if err != nil {
			return nil, fmt.Errorf("cachepkg: redis URL %q: %w", opt.URL, err)
		}
		// Fail fast: the cache is an optimisation, and a read that waits
		// for a dead server is slower than a miss.
		ro.MaxRetries = -1
		// One dial a call: go-redis's default of 5, 100 ms apart, makes
		// a read wait 400 ms for a refused connection.
		ro.DialerRetries = 1
		ro.DialTimeout = r.timeout
		ro.ReadTimeout = r.timeout
		ro.WriteTimeout = r.timeout
		ro.ContextTimeoutEnabled = true
		// Many sessions read at once (a server, a grep's prefetch): a
		// larger pool than go-redis's 10 per CPU keeps them from queueing
		// for a connection until their deadline.
		ro.PoolSize = max(ro.PoolSize, 64)
		r.c = redis.NewClient(ro)
		r.own = true
	}
	if r.log != nil {
		redis.SetLogger(redisLogger{r.log})
	}
	return r, nil
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
func (r *Redis) quiet(err error) error {
	if r.log != nil {
		return nil
	}
	return err
}

// Close closes the client, unless it was passed in RedisOptions.Client.
func (r *Redis) Close() error {
	if r.own {
		return r.c.Close()
	}
	return nil
}

// Ping checks that the server answers.
func (r *Redis) Ping(ctx context.Context) error {
	ctx, cancel, err := r.begin(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	return r.done("ping", r.c.Ping(ctx).Err())
}

// begin applies the timeout, or fails fast while the server is deemed
// down.
func (r *Redis) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	return r.beginN(ctx, 1)
}

// beginN is begin for a batch of n keys, whose timeout grows by 50 µs a
// key (a pipeline of 512 pages gets 25 ms more than one GET).
func (r *Redis) beginN(ctx context.Context, n int) (context.Context, context.CancelFunc, error) {
	if until := r.down.Load(); until != 0 && time.Now().UnixNano() < until {
		return nil, nil, fmt.Errorf("cachepkg: redis %s: %w (retrying after %s)", r.addr(), ErrUnavailable, time.Unix(0, until).Format(time.RFC3339Nano))
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout+time.Duration(n)*50*time.Microsecond)
	return ctx, cancel, nil
}

// done wraps err, and marks the server down after an error that is not
// the caller's own cancellation.
// With a Logger, the first failure of an episode is logged as a warning
// and the success that ends it as info.
func (r *Redis) done(op string, err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		if r.down.Swap(0) != 0 && r.log != nil {
			r.log.Info("chromafs: redis cache answers again", "addr", r.addr())
		}
		return nil
	}
	err = fmt.Errorf("cachepkg: redis %s at %s: %w", op, r.addr(), err)
	if !errors.Is(err, context.Canceled) {
		if r.down.Swap(time.Now().Add(r.backoff).UnixNano()) == 0 && r.log != nil {
			r.log.Warn("chromafs: redis cache unreachable; reading pages from the store until it answers again",
				"addr", r.addr(), "err", err)
		}
	}
	return err
}

func (r *Redis) addr() string { return r.c.Options().Addr }

func (r *Redis) key(k string) string { return r.prefix + k }

// Get implements Cache.
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
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

// Put implements Cache.
func (r *Redis) Put(ctx context.Context, key string, value []byte) error {
	ctx, cancel, err := r.begin(ctx)
	if err != nil {
		return r.quiet(err)
	}
	defer cancel()
	return r.quiet(r.done("set", r.c.Set(ctx, r.key(key), value, r.ttl).Err()))
}

// Has implements Cache.
func (r *Redis) Has(ctx context.Context, key string) (bool, error) {
	ctx, cancel, err := r.begin(ctx)
	if err != nil {
		return false, r.quiet(err)
	}
	defer cancel()
	n, err := r.c.Exists(ctx, r.key(key)).Result()
	return n > 0, r.quiet(r.done("exists", err))
}

// redisBatch is the most keys one MGET or pipeline carries.
const redisBatch = 512

// GetMany implements Cache with MGET, redisBatch keys at a time.
func (r *Redis) GetMany(ctx context.Context, keys []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(keys))
	for i := 0; i < len(keys); i += redisBatch {
		batch := keys[i:min(i+redisBatch, len(keys))]
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

// PutMany implements Cache with pipelined SETs, redisBatch at a time.
func (r *Redis) PutMany(ctx context.Context, values map[string][]byte) error {
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
		if pipe.Len() >= redisBatch {
			if err := flush(); err != nil {
				return r.quiet(err)
			}
		}
	}
	return r.quiet(flush())
}

// Clear implements Cache: it deletes the keys under the prefix (SCAN and
// UNLINK), leaving the rest of the server alone.
func (r *Redis) Clear(ctx context.Context) error {
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
