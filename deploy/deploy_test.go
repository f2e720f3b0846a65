package deploy_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// docs splits a multi-document YAML file.
func docs(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	var out []map[string]any
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("%s: %v", path, err)
		}
		if m != nil {
			out = append(out, m)
		}
	}
}

func dig(m any, path ...string) any {
	for _, p := range path {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[p]
	}
	return m
}

func TestKubernetesManifests(t *testing.T) {
	kinds := map[string]int{}
	files, _ := filepath.Glob("k8s/*.yaml")
	for _, f := range files {
		for _, d := range docs(t, f) {
			kind, _ := d["kind"].(string)
			kinds[kind]++
			if d["apiVersion"] == nil || dig(d, "metadata", "name") == nil {
				t.Errorf("%s: %s lacks apiVersion or metadata.name", f, kind)
			}
			if kind != "Deployment" {
				continue
			}
			spec := dig(d, "spec", "template", "spec")
			if dig(spec, "securityContext", "runAsNonRoot") != true {
				t.Errorf("%s: pods must run as non-root", f)
			}
			for _, c := range dig(spec, "containers").([]any) {
				if dig(c, "readinessProbe", "httpGet", "path") != "/readyz" || dig(c, "livenessProbe", "httpGet", "path") != "/healthz" {
					t.Errorf("%s: probes must be /readyz and /healthz", f)
				}
				if dig(c, "resources", "requests") == nil || dig(c, "resources", "limits", "memory") == nil {
					t.Errorf("%s: resources missing", f)
				}
				if ef, _ := dig(c, "envFrom").([]any); len(ef) == 0 || dig(ef[0], "secretRef", "name") != "warden" {
					t.Errorf("%s: secrets must come from the warden Secret", f)
				}
			}
		}
	}
	for _, k := range []string{"Deployment", "Service", "PodDisruptionBudget", "Secret"} {
		if kinds[k] == 0 {
			t.Errorf("no %s in deploy/k8s", k)
		}
	}
	if kinds["Deployment"] != 2 {
		t.Errorf("want web and worker Deployments, got %d", kinds["Deployment"])
	}
}

func TestComposeAndManifest(t *testing.T) {
	c := docs(t, "compose.yaml")[0]
	for _, svc := range []string{"web", "worker", "redis"} {
		if dig(c, "services", svc) == nil {
			t.Errorf("compose lacks %s", svc)
		}
	}
	if !strings.Contains(strings.Join(toStrings(dig(c, "services", "redis", "command")), " "), "--appendonly yes") {
		t.Error("compose Redis must persist")
	}
	// Redis is a trust boundary: it starts with a password and the bot's URLs carry it.
	if !strings.Contains(strings.Join(toStrings(dig(c, "services", "redis", "command")), " "), "--requirepass") {
		t.Error("compose Redis must require a password")
	}
	for _, svc := range []string{"web", "worker"} {
		if u, _ := dig(c, "services", svc, "environment", "WARDEN_REDIS_URL").(string); !strings.Contains(u, ":${WARDEN_REDIS_PASSWORD") {
			t.Errorf("compose %s reaches Redis without the password: %q", svc, u)
		}
	}
	for _, d := range docs(t, "k8s/secret.yaml") {
		if u, _ := dig(d, "stringData", "WARDEN_REDIS_URL").(string); !regexp.MustCompile(`^rediss?://:[^@]+@`).MatchString(u) {
			t.Errorf("the Kubernetes Secret's Redis URL has no password: %q", u)
		}
	}
	app := docs(t, "app.yml")[0]
	perms := dig(app, "default_permissions").(map[string]any)
	for p, want := range map[string]string{"issues": "write", "pull_requests": "write", "contents": "write", "statuses": "write", "checks": "write", "metadata": "read"} {
		if perms[p] != want {
			t.Errorf("manifest permission %s = %v, want %s", p, perms[p], want)
		}
	}
	events := strings.Join(toStrings(app["default_events"]), ",")
	for _, e := range []string{"issues", "issue_comment", "pull_request", "pull_request_review", "check_suite", "check_run", "status"} {
		if !strings.Contains(events, e) {
			t.Errorf("manifest lacks event %s", e)
		}
	}
}

func TestDockerfileRunsAsNonRootWithGit(t *testing.T) {
	b, _ := os.ReadFile("Dockerfile")
	s := string(b)
	if !strings.Contains(s, "AS build") || !regexp.MustCompile(`(?m)^USER \d+`).MatchString(s) || !strings.Contains(s, " git ") {
		t.Fatal("Dockerfile must be multi-stage, non-root, with git")
	}
}

// The dashboard only queries metric names Warden exports.
func TestDashboardUsesKnownMetrics(t *testing.T) {
	b, err := os.ReadFile("grafana/warden.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Targets []struct{ Expr string } `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	var known string
	srcs, _ := filepath.Glob("../observe/metrics/*.go")
	for _, f := range srcs {
		b, _ := os.ReadFile(f)
		known += string(b)
	}
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			for _, m := range regexp.MustCompile(`warden_[a-z_]+`).FindAllString(tg.Expr, -1) {
				base := strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_total")
				if !strings.Contains(known, `"`+base) {
					t.Errorf("dashboard queries unknown metric %s", m)
				}
			}
		}
	}
}

func toStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// The worker's container lets bubblewrap create its namespaces and mount a
// fresh /proc, without privileges; the image has bubblewrap.
func TestWorkerCanSandbox(t *testing.T) {
	b, _ := os.ReadFile("Dockerfile")
	if !strings.Contains(string(b), "bubblewrap") {
		t.Error("the image must install bubblewrap")
	}
	c := docs(t, "compose.yaml")[0]
	opts := strings.Join(toStrings(dig(c, "services", "worker", "security_opt")), " ")
	for _, want := range []string{"seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"} {
		if !strings.Contains(opts, want) {
			t.Errorf("compose worker security_opt lacks %s: %q", want, opts)
		}
	}
	if dig(c, "services", "worker", "privileged") == true || dig(c, "services", "worker", "cap_add") != nil {
		t.Error("the worker must not be privileged")
	}
	for _, d := range docs(t, "k8s/worker.yaml") {
		if d["kind"] != "Deployment" {
			continue
		}
		spec := dig(d, "spec", "template", "spec")
		if dig(spec, "securityContext", "seccompProfile", "type") != "Unconfined" || dig(spec, "securityContext", "appArmorProfile", "type") != "Unconfined" || dig(spec, "hostUsers") != false {
			t.Errorf("worker pod: seccomp/AppArmor must allow user namespaces and hostUsers be false: %v", dig(spec, "securityContext"))
		}
		for _, ct := range dig(spec, "containers").([]any) {
			if dig(ct, "securityContext", "procMount") != "Unmasked" || dig(ct, "securityContext", "privileged") == true {
				t.Errorf("worker container: procMount must be Unmasked, never privileged: %v", dig(ct, "securityContext"))
			}
		}
	}
}
