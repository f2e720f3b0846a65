package redteam

// Threat-model row: "The public port", /metrics on it. With
// WARDEN_OPS_ADDR=shared the metrics share the internet's port; they name
// private repositories, failures and spend, so only the operator reads them.

import (
	"net/http"
	"testing"

	"github.com/warden-bot/warden/test/harness"
	tw "github.com/warden-bot/warden/test/world"
)

func metricsStatus(t *testing.T, url, user, pass string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// On the shared port /metrics answers only the operator's password; on
// 326ec27 anyone read it there.
func TestPortMetricsOnTheSharedPortNeedTheOperatorsPassword(t *testing.T) {
	w := tw.New(t, nil)
	if code := metricsStatus(t, w.Bot.URL(), "", ""); code != http.StatusUnauthorized {
		t.Errorf("/metrics without a password answered %d, want 401", code)
	}
	if code := metricsStatus(t, w.Bot.URL(), "ops", "guess"); code != http.StatusUnauthorized {
		t.Errorf("/metrics with a wrong password answered %d, want 401", code)
	}
	if code := metricsStatus(t, w.Bot.URL(), "ops", harness.OpsPassword); code != http.StatusOK {
		t.Errorf("/metrics with the operator's password answered %d, want 200", code)
	}
}

// Without an operator password the shared port does not serve /metrics
// at all (404, as an unserved route).
func TestPortMetricsWithoutAPasswordAreNotServedOnTheSharedPort(t *testing.T) {
	w := tw.New(t, nil, func(env map[string]string) { env["WARDEN_UI_PASSWORD"] = "" })
	if code := metricsStatus(t, w.Bot.URL(), "", ""); code != http.StatusNotFound {
		t.Errorf("/metrics on the shared port without an operator password answered %d, want 404", code)
	}
}
