package cachepkg

import "errors"

// ErrUnavailable is wrapped by the errors a networked cache (such as
// rediscache.Cache) returns without trying its server, because a recent
// call found the server unreachable and the cache is failing fast until
// its backoff ends. Callers test for it with errors.Is.
var ErrUnavailable = errors.New("cache server unavailable")
