package redisurl

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hibiken/asynq"
)

func TestParse(t *testing.T) {
	cases := []struct {
		url  string
		want asynq.RedisConnOpt
	}{
		{"redis://:pw@r:6379/3", asynq.RedisClientOpt{Addr: "r:6379", Password: "pw", DB: 3}},
		{"redis-sentinel://:spw@s1:26379,s2:26379/2?master=main&password=mpw",
			asynq.RedisFailoverClientOpt{MasterName: "main", SentinelAddrs: []string{"s1:26379", "s2:26379"}, SentinelPassword: "spw", Password: "mpw", DB: 2}},
		{"redis-sentinel://s1:26379?master=main", asynq.RedisFailoverClientOpt{MasterName: "main", SentinelAddrs: []string{"s1:26379"}}},
		{"redis-cluster://u:pw@c1:7000,c2:7001,c3:7002", asynq.RedisClusterClientOpt{Addrs: []string{"c1:7000", "c2:7001", "c3:7002"}, Username: "u", Password: "pw"}},
	}
	for _, c := range cases {
		got, err := Parse(c.url)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) = %#v, %v; want %#v", c.url, got, err, c.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	cases := map[string]string{
		"redis-sentinel://s1:26379":            "master",
		"redis-sentinel://s1:26379/x?master=m": "database number",
		"redis-cluster://c1:7000/1":            "only database 0",
		"redis-cluster://":                     "no host",
		"http://r:6379":                        "unsupported",
		"redis://:hunter2@r:6379/%zz":          "parse redis url",
	}
	for url, want := range cases {
		_, err := Parse(url)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v; want an error about %q", url, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Parse(%q) error repeats the password: %v", url, err)
		}
	}
}
