package rediscache

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

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
		return fmt.Errorf("%w %s: %s (want %s)", ErrBadURL, redact(raw), msg, urlForms)
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

// redact returns raw without its credentials, for messages: the
// userinfo (a user name can be a token too) and the values of query parameters whose name contains
// "password" become "xxxxx". A string that does not parse keeps
// only its scheme.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if scheme, _, ok := strings.Cut(raw, "://"); ok && !strings.ContainsAny(scheme, "@:/?#") {
			return scheme + "://xxxxx"
		}
		return "xxxxx"
	}
	if u.User != nil {
		u.User = url.User("xxxxx")
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			u.RawQuery = "xxxxx"
		} else {
			for k, vs := range q {
				if strings.Contains(strings.ToLower(k), "password") {
					for i := range vs {
						vs[i] = "xxxxx"
					}
				}
			}
			u.RawQuery = q.Encode()
		}
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
