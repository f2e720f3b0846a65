package setup

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/warden-bot/warden/config"
	"go.yaml.in/yaml/v3"
)

// PlaceholderWebhookURL stands in for the webhook URL when no public URL is
// known; the user is told to replace it in the App's settings.
const PlaceholderWebhookURL = "https://example.invalid/webhooks"

// manifestJSON turns the YAML manifest into the JSON GitHub expects, with
// redirect_url pointing back at this server and the webhook URL filled in.
func manifestJSON(yamlManifest []byte, redirectURL, webhookURL string) (string, error) {
	var m map[string]any
	if err := yaml.Unmarshal(yamlManifest, &m); err != nil {
		return "", fmt.Errorf("parse app manifest: %w", err)
	}
	if m == nil {
		return "", fmt.Errorf("parse app manifest: empty")
	}
	hook, _ := m["hook_attributes"].(map[string]any)
	if hook == nil {
		hook = map[string]any{"active": true}
	}
	hook["url"] = webhookURL
	m["hook_attributes"] = hook
	m["redirect_url"] = redirectURL
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode app manifest: %w", err)
	}
	return string(b), nil
}

// Validate checks the URLs; a bad one is a *config.Error naming its setting.
func (o Options) Validate() error {
	urls := []struct{ setting, value string }{
		{"WARDEN_GITHUB_URL", o.GitHubURL}, {"WARDEN_GITHUB_API_URL", o.APIURL}, {"WARDEN_PUBLIC_URL", o.PublicURL},
	}
	for _, u := range urls {
		if u.value == "" && u.setting == "WARDEN_PUBLIC_URL" {
			continue
		}
		if !isHTTPURL(u.value) {
			return &config.Error{Setting: u.setting, Msg: "must be an http(s) URL"}
		}
	}
	if strings.ContainsAny(o.Org, "/?#%") {
		return &config.Error{Setting: "--org", Msg: "must be an organization login"}
	}
	return nil
}

// webhookURL is <public>/webhooks, or the placeholder without a public URL.
func webhookURL(public string) string {
	if public == "" {
		return PlaceholderWebhookURL
	}
	return strings.TrimSuffix(public, "/") + "/webhooks"
}

// newAppURL is where the manifest form posts: the user's or the
// organization's "new GitHub App" page, with the state GitHub hands back.
func newAppURL(githubURL, org, state string) string {
	base := strings.TrimSuffix(githubURL, "/")
	if org == "" {
		return base + "/settings/apps/new?state=" + url.QueryEscape(state)
	}
	return base + "/organizations/" + url.PathEscape(org) + "/settings/apps/new?state=" + url.QueryEscape(state)
}

func isHTTPURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
