// Package rediscache is a [cachepkg.Cache] on Redis, shared by every
// process that uses the same servers and key prefix: one server, a Redis
// Cluster (to scale out), or the master that Redis Sentinel names. It
// lives apart from cachepkg so that only the programs that use Redis link
// go-redis.
//
// [New] dials a URL (redis://, rediss://, unix://, redis+cluster:// or
// redis+sentinel://) with settings tuned for a cache (fail fast, one dial
// a call, a pool sized for many concurrent readers); [NewClient] wraps a
// go-redis client that the caller configured and owns.
//
// Every command names one key, so that a cluster can serve it: batches
// are pipelines of single-key commands (or one MGET on a single server),
// and no key carries a hash tag, so that a cluster spreads the pages
// over all its masters.
package rediscache

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
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
	// [New], a zero Timeout is the URL's read_timeout when it sets one,
	// and Timeout is also the client's dial, read and write timeout
	// where the URL sets none (dial_timeout, read_timeout,
	// write_timeout); a client given to [NewClient] keeps its own, and
	// honours the per-call deadline only with ContextTimeoutEnabled.
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

// Cache is a [cachepkg.Cache] on a Redis server, a Redis Cluster or the
// master that Redis Sentinel names. Batch operations are pipelined (MGET
// and pipelined SETs on one server; in a cluster, pipelined GETs and SETs,
// which go-redis sends to each key's master, as one MGET may not span hash
// slots) batchSize keys at a time. It reports every failure as an error
// (a cache is an optimisation; chromafs treats an error as a miss and
// logs it), or, with Options.Logger, logs one warning per failure episode
// and reports failures as misses; after a network failure it fails fast
// with errors wrapping [cachepkg.ErrUnavailable] for Options.Backoff
// instead of making every read wait for a dead server. In a cluster each
// master has its own episodes: keys on a dead master miss (one warning
// for it) while the others keep hitting. It is safe for concurrent use.
type Cache struct {
	c       redis.UniversalClient
	cc      *redis.ClusterClient // c, when it is a cluster client
	own     bool
	all     *node    // the whole deployment: the server, or a cluster's seeds
	nodes   sync.Map // a cluster master's address → its *node
	prefix  string
	ttl     time.Duration
	timeout time.Duration
	backoff time.Duration
	log     *slog.Logger // Options.Logger

	hits, misses, errs atomic.Uint64 // Stats
}

// Stats implements cachepkg.StatsReporter: a hit or a miss per key that
// Get and GetMany look up, and the keys whose lookup failed (misses too).
func (r *Cache) Stats() cachepkg.Stats {
	return cachepkg.Stats{Hits: r.hits.Load(), Misses: r.misses.Load(), Errors: r.errs.Load()}
}

// node is the failure state of one server: the standalone or Sentinel
// master, a cluster master, or a cluster as a whole (for a failure before
// a command reached a master, such as no seed answering).
type node struct {
	addr string // for messages
	// down is 0 while the server works, else the unix nanoseconds until
	// which calls fail fast; it stays non-zero (the episode goes on)
	// until a call succeeds.
	down atomic.Int64
}

var _ interface {
	cachepkg.Cache
	cachepkg.SharedHas
} = (*Cache)(nil)

// New returns a cache on the Redis deployment that url names, in
// go-redis's URL syntax (its query options included):
//
//   - redis://[user:password@]host:port[/db], rediss:// for TLS, or
//     unix:///path/to/socket: one server (redis.ParseURL);
//   - redis+cluster://[user:password@]host:port?addr=host2:port&addr=…
//     (rediss+cluster:// for TLS): a Redis Cluster, found from these seed
//     nodes, one of which is enough (redis.ParseClusterURL);
//   - redis+sentinel://[user:password@]host:port[/db]?master_name=NAME&addr=host2:port…
//     (rediss+sentinel:// for TLS): the master that these Sentinels name
//     (redis.ParseFailoverURL; the userinfo authenticates to the
//     Sentinels, the query's username and password to the master).
//
// A URL that is none of these is an error wrapping [ErrBadURL] that
// names the problem and shows the URL without its credentials. New makes
// the client, which Close closes, with settings for a cache: no retries,
// one dial a call, Options.Timeout as the dial, read and write timeout
// where the URL sets none (its read_timeout is the per-call bound when
// Options.Timeout is zero: ?read_timeout=5s for a loaded machine),
// context deadlines honoured, and a pool of at least 64 connections (per
// master in a cluster). It does not contact the servers: an unreachable
// one shows up as errors from the cache's methods (and Ping).
func New(url string, opt Options) (*Cache, error) {
	p, err := parseURL(url)
	if err != nil {
		return nil, err
	}
	if opt.Timeout <= 0 {
		opt.Timeout = p.readTimeout()
	}
	r := newCache(opt)
	// Fail fast: the cache is an optimisation, and a read that waits for
	// a dead server is slower than a miss. One dial a call: go-redis's
	// default of 5, 100 ms apart, makes a read wait 400 ms for a refused
	// connection. Many sessions read at once (a server, a grep's
	// prefetch): a larger pool than go-redis's 10 per CPU keeps them from
	// queueing for a connection until their deadline.
	switch p.mode {
	case cluster:
		o := p.cluster
		o.MaxRetries, o.DialerRetries = -1, 1
		// A cluster client tries a key's master again (and MOVED
		// redirections) up to MaxRedirects times: without sleeping.
		o.MinRetryBackoff, o.MaxRetryBackoff = -1, -1
		o.DialTimeout, o.ReadTimeout, o.WriteTimeout = cmp.Or(o.DialTimeout, r.timeout), cmp.Or(o.ReadTimeout, r.timeout), cmp.Or(o.WriteTimeout, r.timeout)
		o.ContextTimeoutEnabled = true
		o.PoolSize = max(o.PoolSize, 64)
		r.cc = redis.NewClusterClient(o)
		r.c, r.all = r.cc, &node{addr: "cluster " + strings.Join(o.Addrs, ",")}
	case sentinel:
		o := p.failover
		o.MaxRetries, o.DialerRetries = -1, 1
		o.DialTimeout, o.ReadTimeout, o.WriteTimeout = cmp.Or(o.DialTimeout, r.timeout), cmp.Or(o.ReadTimeout, r.timeout), cmp.Or(o.WriteTimeout, r.timeout)
		o.ContextTimeoutEnabled = true
		o.PoolSize = max(o.PoolSize, 64)
		r.c, r.all = redis.NewFailoverClient(o), &node{addr: "master " + o.MasterName + " of sentinels " + strings.Join(o.SentinelAddrs, ",")}
	default:
		o := p.single
		o.MaxRetries, o.DialerRetries = -1, 1
		o.DialTimeout, o.ReadTimeout, o.WriteTimeout = cmp.Or(o.DialTimeout, r.timeout), cmp.Or(o.ReadTimeout, r.timeout), cmp.Or(o.WriteTimeout, r.timeout)
		o.ContextTimeoutEnabled = true
		o.PoolSize = max(o.PoolSize, 64)
		r.c, r.all = redis.NewClient(o), &node{addr: o.Addr}
	}
	r.own = true
	return r, nil
}

// AddHook adds a go-redis hook to the cache's client (tracing, say): it
// sees every command and pipeline the cache sends, in every mode (one
// server, Sentinel, Cluster). Add hooks before the cache is used.
func (r *Cache) AddHook(h redis.Hook) { r.c.AddHook(h) }

// NewClient returns a cache on c, a client that the caller made and
// owns: Close leaves it open. The client's own settings (retries,
// timeouts, pool) apply; for a cache, fail-fast settings like those of
// [New] are advisable. A *redis.ClusterClient (what
// redis.NewUniversalClient makes for several addresses) is used as [New]
// uses one; any other client is taken for one server, whose batches may
// use MGET.
func NewClient(c redis.UniversalClient, opt Options) (*Cache, error) {
	if c == nil {
		return nil, errors.New("rediscache: NewClient needs a client, got nil")
	}
	r := newCache(opt)
	r.c = c
	switch c := c.(type) {
	case *redis.Client:
		r.all = &node{addr: c.Options().Addr}
	case *redis.ClusterClient:
		r.cc = c
		r.all = &node{addr: "cluster " + strings.Join(c.Options().Addrs, ",")}
	default:
		r.all = &node{addr: fmt.Sprintf("%T", c)}
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

// Ping checks that the server answers; in a cluster, that every master
// answers.
func (r *Cache) Ping(ctx context.Context) error {
	if r.cc != nil {
		cctx, cancel, err := r.begin(ctx, r.all, 1)
		if err != nil {
			return err
		}
		defer cancel()
		err = r.cc.ForEachMaster(cctx, func(ctx context.Context, c *redis.Client) error {
			n := r.node(c.Options().Addr)
			ctx, cancel, err := r.begin(ctx, n, 1)
			if err != nil {
				return err
			}
			defer cancel()
			return r.done(n, "ping", c.Ping(ctx).Err())
		})
		var ne *nodeError
		if errors.As(err, &ne) {
			return err // its master's episode has it
		}
		return r.done(r.all, "ping", err)
	}
	ctx, cancel, err := r.begin(ctx, r.all, 1)
	if err != nil {
		return err
	}
	defer cancel()
	return r.done(r.all, "ping", r.c.Ping(ctx).Err())
}

// nodeError is an error of a call to one server, wrapped by done.
type nodeError struct{ err error }

func (e *nodeError) Error() string { return e.err.Error() }
func (e *nodeError) Unwrap() error { return e.err }

// node returns the state of the server at addr.
func (r *Cache) node(addr string) *node {
	if n, ok := r.nodes.Load(addr); ok {
		return n.(*node)
	}
	n, _ := r.nodes.LoadOrStore(addr, &node{addr: addr})
	return n.(*node)
}

// nodeFor returns the state of the server that holds the (prefixed) key:
// in a cluster, its master as the client last saw the cluster's slots.
// It returns r.all when it cannot tell (with the error of finding out).
func (r *Cache) nodeFor(ctx context.Context, key string) (*node, error) {
	if r.cc == nil {
		return r.all, nil
	}
	c, err := r.cc.MasterForKey(ctx, key)
	if err != nil {
		return r.all, err
	}
	if r.all.down.Load() != 0 {
		_ = r.done(r.all, "", nil) // the cluster's slots are known again
	}
	return r.node(c.Options().Addr), nil
}

// begin applies the timeout for a call of nkeys keys to n, whose timeout
// grows by 50 µs a key (a pipeline of 512 pages gets 25 ms more than one
// GET), or fails fast while n is deemed down.
func (r *Cache) begin(ctx context.Context, n *node, nkeys int) (context.Context, context.CancelFunc, error) {
	if err := r.failFast(n); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout+time.Duration(nkeys)*50*time.Microsecond)
	return ctx, cancel, nil
}

// failFast returns the error of a call to n while n is deemed down.
func (r *Cache) failFast(n *node) error {
	if until := n.down.Load(); until != 0 && time.Now().UnixNano() < until {
		return &nodeError{fmt.Errorf("rediscache: redis %s: %w (retrying after %s)", n.addr, cachepkg.ErrUnavailable, time.Unix(0, until).Format(time.RFC3339Nano))}
	}
	return nil
}

// done wraps err, and marks n down after an error that is not the
// caller's own cancellation. With a Logger, the first failure of an
// episode is logged as a warning and the success that ends it as info.
func (r *Cache) done(n *node, op string, err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		if n.down.Swap(0) != 0 && r.log != nil {
			r.log.Info("chromafs: redis cache answers again", "addr", n.addr)
		}
		return nil
	}
	var ne *nodeError
	if errors.As(err, &ne) {
		return err // already n's (or its master's) failure
	}
	err = fmt.Errorf("rediscache: redis %s at %s: %w", op, n.addr, err)
	if !errors.Is(err, context.Canceled) {
		if n.down.Swap(time.Now().Add(r.backoff).UnixNano()) == 0 && r.log != nil {
			r.log.Warn("chromafs: redis cache unreachable; reading pages from the store until it answers again",
				"addr", n.addr, "err", err)
		}
	}
	return &nodeError{err}
}

func (r *Cache) key(k string) string { return r.prefix + k }

// one runs a command on key's server: f gets the prefixed key and the
// call's context.
func (r *Cache) one(ctx context.Context, op, key string, f func(ctx context.Context, key string) error) error {
	full := r.key(key)
	if err := r.failFast(r.all); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout+50*time.Microsecond)
	defer cancel()
	n, err := r.nodeFor(ctx, full)
	if err != nil {
		return r.done(n, op, err)
	}
	if err := r.failFast(n); err != nil {
		return err
	}
	return r.done(n, op, f(ctx, full))
}

// Get implements cachepkg.Cache.
func (r *Cache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	var v []byte
	found := false
	err := r.one(ctx, "get", key, func(ctx context.Context, key string) (err error) {
		v, err = r.c.Get(ctx, key).Bytes()
		found = err == nil
		return err
	})
	if err != nil || !found {
		r.misses.Add(1)
		if err != nil && !errors.Is(err, redis.Nil) {
			r.errs.Add(1)
		}
		return nil, false, r.quiet(err)
	}
	r.hits.Add(1)
	return v, true, nil
}

// Put implements cachepkg.Cache.
func (r *Cache) Put(ctx context.Context, key string, value []byte) error {
	return r.quiet(r.one(ctx, "set", key, func(ctx context.Context, key string) error {
		return r.c.Set(ctx, key, value, r.ttl).Err()
	}))
}

// Has implements cachepkg.Cache.
func (r *Cache) Has(ctx context.Context, key string) (bool, error) {
	var n int64
	err := r.one(ctx, "exists", key, func(ctx context.Context, key string) (err error) {
		n, err = r.c.Exists(ctx, key).Result()
		return err
	})
	return n > 0, r.quiet(err)
}

// batchSize is the most keys one MGET or pipeline carries, and
// existsBatch the most keys of one EXISTS (whose answer is one integer).
const (
	batchSize   = 512
	existsBatch = 4096
)

// batch runs op on keys (unprefixed), size at a time. For each
// batch it finds each key's server, leaves out the keys of servers deemed
// down, and calls run with the rest (prefixed) and the batch's context;
// run returns one error per key, or one error for all of them (keyErrs
// nil). It returns the first error.
func (r *Cache) batch(ctx context.Context, op string, keys []string, size int,
	run func(ctx context.Context, full []string, idx []int) (keyErrs []error, err error)) error {
	var first error
	note := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for i := 0; i < len(keys); i += size {
		batch := keys[i:min(i+size, len(keys))]
		if err := r.failFast(r.all); err != nil {
			note(err)
			break
		}
		func() {
			cctx, cancel := context.WithTimeout(ctx, r.timeout+time.Duration(len(batch))*50*time.Microsecond)
			defer cancel()
			full := make([]string, 0, len(batch))
			idx := make([]int, 0, len(batch)) // i+idx[j] is the key of full[j]
			nodes := make([]*node, 0, len(batch))
			for j, k := range batch {
				fk := r.key(k)
				n, err := r.nodeFor(cctx, fk)
				if err != nil {
					note(r.done(n, op, err))
					return
				}
				if err := r.failFast(n); err != nil {
					note(err)
					continue
				}
				full, idx, nodes = append(full, fk), append(idx, i+j), append(nodes, n)
			}
			if len(full) == 0 {
				return
			}
			keyErrs, err := run(cctx, full, idx)
			// A server answered if one of its keys had no error;
			// else its first error ends (or goes on with) its episode.
			failed := map[*node]error{}
			ok := map[*node]bool{}
			for j, n := range nodes {
				e := err
				if keyErrs != nil {
					e = keyErrs[j]
				}
				if e == nil || errors.Is(e, redis.Nil) {
					ok[n] = true
				} else if failed[n] == nil {
					failed[n] = e
				}
			}
			for n := range ok {
				if failed[n] == nil {
					_ = r.done(n, op, nil)
				}
			}
			for j := range nodes { // in key order, for a stable first error
				if e := failed[nodes[j]]; e != nil {
					note(r.done(nodes[j], op, e))
					delete(failed, nodes[j])
				}
			}
		}()
	}
	return first
}

// GetMany implements cachepkg.Cache: with MGET on one server, with
// pipelined GETs in a cluster.
func (r *Cache) GetMany(ctx context.Context, keys []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(keys))
	err := r.batch(ctx, "mget", keys, batchSize, func(ctx context.Context, full []string, idx []int) ([]error, error) {
		if r.cc == nil {
			vals, err := r.c.MGet(ctx, full...).Result()
			if err != nil {
				return nil, err
			}
			for j, v := range vals {
				if s, ok := v.(string); ok {
					out[keys[idx[j]]] = []byte(s)
				}
			}
			return nil, nil
		}
		pipe := r.c.Pipeline()
		cmds := make([]*redis.StringCmd, len(full))
		for j, k := range full {
			cmds[j] = pipe.Get(ctx, k)
		}
		_, _ = pipe.Exec(ctx) // the errors are the commands'
		errs := make([]error, len(full))
		for j, cmd := range cmds {
			v, err := cmd.Bytes()
			if err == nil {
				out[keys[idx[j]]] = v
			}
			errs[j] = err
		}
		return errs, nil
	})
	r.hits.Add(uint64(len(out)))
	r.misses.Add(uint64(len(keys) - len(out)))
	if err != nil {
		r.errs.Add(uint64(len(keys) - len(out)))
	}
	return out, r.quiet(err)
}

// HasShared implements cachepkg.SharedHas: on one server with one EXISTS
// of up to 4,096 keys, which answers how many are held (all of them, when
// earlier processes read these pages), and pipelined EXISTS a key only
// when some are missing; in a cluster with pipelined EXISTS a key, which
// go-redis sends to each key's master, batchSize keys a pipeline.
// Keys of a server deemed down are reported absent.
func (r *Cache) HasShared(ctx context.Context, keys []string) ([]bool, error) {
	has := make([]bool, len(keys))
	size := batchSize
	if r.cc == nil {
		size = existsBatch
	}
	err := r.batch(ctx, "exists", keys, size, func(ctx context.Context, full []string, idx []int) ([]error, error) {
		if r.cc == nil {
			n, err := r.c.Exists(ctx, full...).Result()
			if err != nil {
				return nil, err
			}
			if int(n) == len(full) {
				for _, i := range idx {
					has[i] = true
				}
				return nil, nil
			}
		}
		pipe := r.c.Pipeline()
		cmds := make([]*redis.IntCmd, len(full))
		for j, k := range full {
			cmds[j] = pipe.Exists(ctx, k)
		}
		_, _ = pipe.Exec(ctx) // the errors are the commands'
		errs := make([]error, len(full))
		for j, cmd := range cmds {
			n, err := cmd.Result()
			has[idx[j]] = err == nil && n > 0
			errs[j] = err
		}
		return errs, nil
	})
	return has, r.quiet(err)
}

// PutMany implements cachepkg.Cache with pipelined SETs, batchSize at a
// time.
func (r *Cache) PutMany(ctx context.Context, values map[string][]byte) error {
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	return r.quiet(r.batch(ctx, "pipelined set", keys, batchSize, func(ctx context.Context, full []string, idx []int) ([]error, error) {
		pipe := r.c.Pipeline()
		cmds := make([]*redis.StatusCmd, len(full))
		for j, k := range full {
			cmds[j] = pipe.Set(ctx, k, values[keys[idx[j]]], r.ttl)
		}
		_, _ = pipe.Exec(ctx) // the errors are the commands'
		errs := make([]error, len(full))
		for j, cmd := range cmds {
			errs[j] = cmd.Err()
		}
		return errs, nil
	}))
}

// Clear implements cachepkg.Cache: it deletes the keys under the prefix
// (SCAN and UNLINK; on every master of a cluster), leaving the rest of
// the server alone.
func (r *Cache) Clear(ctx context.Context) error {
	if r.cc == nil {
		return r.clear(ctx, r.c, r.all, true)
	}
	cctx, cancel, err := r.begin(ctx, r.all, 1)
	if err != nil {
		return err
	}
	defer cancel()
	// ForEachMaster's context only bounds finding the masters: each
	// SCAN and UNLINK has its own timeout.
	err = r.cc.ForEachMaster(cctx, func(_ context.Context, c *redis.Client) error {
		return r.clear(ctx, c, r.node(c.Options().Addr), false)
	})
	var ne *nodeError
	if errors.As(err, &ne) {
		return err
	}
	return r.done(r.all, "clear", err)
}

// clear deletes the keys under the prefix from the server of c: with one
// UNLINK for each SCAN's keys when multi, else (in a cluster, where the
// keys of one UNLINK must share a hash slot) with a pipelined UNLINK a
// key.
func (r *Cache) clear(ctx context.Context, c redis.Cmdable, n *node, multi bool) error {
	var cursor uint64
	for {
		cctx, cancel, err := r.begin(ctx, n, 1)
		if err != nil {
			return err
		}
		keys, next, err := c.Scan(cctx, cursor, r.prefix+"*", 1000).Result()
		switch {
		case err != nil || len(keys) == 0:
		case multi:
			err = c.Unlink(cctx, keys...).Err()
		default:
			_, err = c.Pipelined(cctx, func(p redis.Pipeliner) error {
				for _, k := range keys {
					p.Unlink(cctx, k)
				}
				return nil
			})
		}
		cancel()
		if err := r.done(n, "clear", err); err != nil {
			return err
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}
