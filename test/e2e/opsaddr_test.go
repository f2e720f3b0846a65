package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/warden-bot/warden/test/harness"
)

// WARDEN_OPS_ADDR (CONTRACT §11): the public address answers the webhook
// and the probes only; /metrics, /ui and /api are on the operator's address.
func TestOperatorRoutesListenApart(t *testing.T) {
	ops := harness.FreeAddr(t)
	bot := harness.StartBot(t, map[string]string{"WARDEN_WEBHOOK_SECRET": "dev", "WARDEN_DATA_DIR": t.TempDir(),
		"WARDEN_OPS_ADDR": ops, "WARDEN_UI_PASSWORD": "ui-pass-0123"})
	get := func(url string) int {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.SetBasicAuth("operator", "ui-pass-0123")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	want := map[string]int{
		bot.URL() + "/healthz": 200, bot.URL() + "/readyz": 200,
		bot.URL() + "/metrics": 404, bot.URL() + "/ui/": 404, bot.URL() + "/api/tasks": 404,
		"http://" + ops + "/metrics": 200, "http://" + ops + "/ui/": 200, "http://" + ops + "/api/tasks": 200,
		"http://" + ops + "/healthz": 404,
	}
	for url, code := range want {
		if got := get(url); got != code {
			t.Errorf("GET %s: %d, want %d", url, got, code)
		}
	}
	resp, err := http.Post("http://"+ops+"/webhooks", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /webhooks on the operator address: %d", resp.StatusCode)
	}
	if !strings.Contains(bot.Logs(), `"surface":"ops"`) {
		t.Errorf("no log line for the operator listener:\n%s", bot.Logs())
	}
}
