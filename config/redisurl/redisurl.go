// Package redisurl reads WARDEN_REDIS_URL: one Redis, a Sentinel group or a
// Cluster, as asynq connection options.
package redisurl

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/hibiken/asynq"
)

// Parse turns WARDEN_REDIS_URL into asynq's connection options.
// Besides asynq's own schemes (redis, rediss, redis-socket) it reads
//
//	redis-sentinel://[:sentinel-password@]host:port,host:port[/db]?master=NAME[&password=P]
//	redis-cluster://[[user]:password@]host:port,host:port
//
// asynq's own sentinel parsing drops the database and the master's password
// and accepts a URL without a master name, which only fails at first use.
func Parse(raw string) (asynq.RedisConnOpt, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the URL, password included: keep only the cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("parse redis url: %w", err)
	}
	switch u.Scheme {
	case "redis-sentinel":
		return parseSentinel(u)
	case "redis-cluster":
		return parseCluster(u)
	}
	opt, err := asynq.ParseRedisURI(raw)
	if err != nil {
		return nil, fmt.Errorf("%w (schemes: redis, rediss, redis-socket, redis-sentinel, redis-cluster)", err)
	}
	return opt, nil
}

func parseSentinel(u *url.URL) (asynq.RedisConnOpt, error) {
	addrs, err := hosts(u)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	if q.Get("master") == "" {
		return nil, fmt.Errorf("redis-sentinel url needs ?master=<name>")
	}
	db, err := dbNumber(u)
	if err != nil {
		return nil, err
	}
	pass, _ := u.User.Password()
	return asynq.RedisFailoverClientOpt{MasterName: q.Get("master"), SentinelAddrs: addrs,
		SentinelPassword: pass, Password: q.Get("password"), DB: db}, nil
}

func parseCluster(u *url.URL) (asynq.RedisConnOpt, error) {
	addrs, err := hosts(u)
	if err != nil {
		return nil, err
	}
	if db, err := dbNumber(u); err != nil || db != 0 {
		return nil, fmt.Errorf("redis-cluster url cannot name a database: a cluster has only database 0")
	}
	pass, _ := u.User.Password()
	return asynq.RedisClusterClientOpt{Addrs: addrs, Username: u.User.Username(), Password: pass}, nil
}

func hosts(u *url.URL) ([]string, error) {
	var out []string
	for h := range strings.SplitSeq(u.Host, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s url names no host", u.Scheme)
	}
	return out, nil
}

func dbNumber(u *url.URL) (int, error) {
	p := strings.Trim(u.Path, "/")
	if p == "" {
		return 0, nil
	}
	db, err := strconv.Atoi(p)
	if err != nil || db < 0 {
		return 0, fmt.Errorf("%s url: the path must be a database number, got %q", u.Scheme, p)
	}
	return db, nil
}
