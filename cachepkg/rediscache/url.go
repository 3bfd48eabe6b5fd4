package rediscache

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrBadURL is wrapped by the error of [New] for a URL that names no
// usable server. The error names the problem and the URL without its
// credentials.
var ErrBadURL = errors.New("rediscache: bad Redis URL")

// urlForms sums up the URL forms of [New], for its errors.
const urlForms = "redis://host:port[/db], rediss://…, unix:///socket, redis+cluster://host:port?addr=host2:port… or redis+sentinel://host:port?master_name=NAME"

// mode is the sort of deployment a URL names.
type mode int

const (
	standalone mode = iota
	cluster
	sentinel
)

// parsed is a URL read by parseURL: exactly one of the options is set.
type parsed struct {
	mode     mode
	single   *redis.Options
	cluster  *redis.ClusterOptions
	failover *redis.FailoverOptions
}

// readTimeout returns the read_timeout that the URL sets, or 0 if it sets
// none (or no timeout: a negative one).
func (p *parsed) readTimeout() time.Duration {
	var d time.Duration
	switch p.mode {
	case cluster:
		d = p.cluster.ReadTimeout
	case sentinel:
		d = p.failover.ReadTimeout
	default:
		d = p.single.ReadTimeout
	}
	return max(d, 0)
}

// parseURL reads raw in one of the forms of [New]. Its errors wrap
// ErrBadURL and show raw redacted.
func parseURL(raw string) (*parsed, error) {
	bad := func(err error) error {
		// url.Parse's errors quote the whole URL, password included:
		// keep only what it says about it.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		msg := strings.TrimPrefix(err.Error(), "redis: ")
		return fmt.Errorf("%w %s: %s (want %s)", ErrBadURL, RedactURL(raw), msg, urlForms)
	}
	if raw == "" {
		return nil, fmt.Errorf("%w: empty (want %s)", ErrBadURL, urlForms)
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok && !strings.HasPrefix(raw, "unix:") {
		return nil, bad(errors.New("no scheme"))
	}
	switch strings.ToLower(scheme) {
	case "redis+cluster", "rediss+cluster":
		co, err := redis.ParseClusterURL(strings.TrimSuffix(strings.ToLower(scheme), "+cluster") + "://" + rest)
		if err != nil {
			return nil, bad(err)
		}
		return &parsed{mode: cluster, cluster: co}, nil
	case "redis+sentinel", "rediss+sentinel":
		fo, err := redis.ParseFailoverURL(strings.TrimSuffix(strings.ToLower(scheme), "+sentinel") + "://" + rest)
		if err != nil {
			return nil, bad(err)
		}
		if fo.MasterName == "" {
			return nil, bad(errors.New("a Sentinel URL needs ?master_name=NAME"))
		}
		return &parsed{mode: sentinel, failover: fo}, nil
	}
	o, err := redis.ParseURL(raw)
	if err != nil {
		return nil, bad(err)
	}
	return &parsed{mode: standalone, single: o}, nil
}

// RedactURL returns raw without its credentials, for messages: the
// userinfo (a user name can be a token too) and the values of query
// parameters whose name contains "password" become "xxxxx", and the
// fragment goes. A string that is not an absolute URL is shown only if
// it has no "@", "?" or "#"; else only its scheme, if any, is kept.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		if !strings.ContainsAny(raw, "@?#") {
			return raw
		}
		if scheme, _, ok := strings.Cut(raw, "://"); ok && scheme != "" && !strings.ContainsAny(scheme, "@:/?#") {
			return scheme + "://xxxxx"
		}
		return "xxxxx"
	}
	if u.User != nil {
		u.User = url.User("xxxxx")
	}
	if u.RawQuery != "" {
		params := strings.Split(u.RawQuery, "&")
		for i, p := range params {
			k, _, _ := strings.Cut(p, "=")
			name, err := url.QueryUnescape(k)
			if err != nil {
				name = k
			}
			if strings.Contains(strings.ToLower(name), "password") {
				params[i] = k + "=xxxxx"
			}
		}
		u.RawQuery = strings.Join(params, "&")
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
