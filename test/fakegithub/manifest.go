package fakegithub

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// The App-manifest flow's web pages, as github.com serves them: a manifest
// POSTed to /settings/apps/new (or an organization's) shows a confirmation
// page; its "Create GitHub App" button registers the App and sends the browser
// to the manifest's redirect_url with a one-time code and the caller's state.
// The code converts (POST /app-manifests/{code}/conversions) into this
// server's own App id and private key, so the result authenticates here.

func (s *Server) manifestRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /settings/apps/new", s.newAppPage)
	m.HandleFunc("GET /organizations/{org}/settings/apps/new", s.newAppPage)
	m.HandleFunc("POST /settings/apps/new", s.manifestPage)
	m.HandleFunc("POST /organizations/{org}/settings/apps/new", s.manifestPage)
	m.HandleFunc("POST /settings/apps/new/confirm", s.createApp)
}

// isWebPath: the manifest pages are browser pages, not API calls.
func isWebPath(p string) bool {
	return strings.HasPrefix(p, "/settings/") || strings.HasPrefix(p, "/organizations/")
}

// CreatedApp is one App the manifest flow created: the manifest the browser
// posted and the conversion response its code is exchanged for.
type CreatedApp struct {
	Manifest, App map[string]any
}

// CreatedApps lists the Apps created through the manifest pages, in order.
func (s *Server) CreatedApps() []CreatedApp {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]CreatedApp(nil), s.created...)
}

func (s *Server) newAppPage(w http.ResponseWriter, r *http.Request) {
	page(w, http.StatusOK, "<h1>Register new GitHub App</h1><p>POST a manifest to register an App from it.</p>", nil)
}

// manifestPage shows the received manifest and the button that creates it.
func (s *Server) manifestPage(w http.ResponseWriter, r *http.Request) {
	raw := r.PostFormValue("manifest")
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		page(w, http.StatusUnprocessableEntity, `<h1>Invalid GitHub App manifest</h1><p id="error">{{.}}</p>`, err.Error())
		return
	}
	if msg := checkManifest(m); msg != "" {
		page(w, http.StatusUnprocessableEntity, `<h1>Invalid GitHub App manifest</h1><p id="error">{{.}}</p>`, msg)
		return
	}
	pretty, _ := json.MarshalIndent(m, "", "  ")
	owner := r.PathValue("org")
	if owner == "" {
		owner = "acme"
	}
	page(w, http.StatusOK, `<h1>Create GitHub App for {{.Owner}}</h1>
<pre id="manifest">{{.Pretty}}</pre>
<form method="post" action="/settings/apps/new/confirm">
<input type="hidden" name="manifest" value="{{.Raw}}"><input type="hidden" name="state" value="{{.State}}">
<input type="hidden" name="owner" value="{{.Owner}}">
<button type="submit" id="create">Create GitHub App</button></form>`,
		map[string]any{"Owner": owner, "Pretty": string(pretty), "Raw": raw, "State": r.URL.Query().Get("state")})
}

// checkManifest applies GitHub's required fields; "" when it is valid.
func checkManifest(m map[string]any) string {
	hook, _ := m["hook_attributes"].(map[string]any)
	redirect, _ := m["redirect_url"].(string)
	switch {
	case m["url"] == nil || m["url"] == "":
		return "url is required"
	case hook == nil || hook["url"] == nil || hook["url"] == "":
		return "hook_attributes.url is required"
	case !strings.HasPrefix(redirect, "http://") && !strings.HasPrefix(redirect, "https://"):
		return "redirect_url must be an http(s) URL"
	}
	return ""
}

// createApp registers the App and redirects to redirect_url?code=…&state=….
func (s *Server) createApp(w http.ResponseWriter, r *http.Request) {
	var m map[string]any
	if err := json.Unmarshal([]byte(r.PostFormValue("manifest")), &m); err != nil || checkManifest(m) != "" {
		page(w, http.StatusUnprocessableEntity, `<h1>Invalid GitHub App manifest</h1>`, nil)
		return
	}
	target, err := url.Parse(m["redirect_url"].(string))
	if err != nil {
		page(w, http.StatusUnprocessableEntity, `<h1>Invalid redirect_url</h1>`, nil)
		return
	}
	code := randHex(10)
	app := s.conversionOf(m, r.PostFormValue("owner"), s.base(r))
	s.AddConversion(code, app)
	s.mu.Lock()
	s.created = append(s.created, CreatedApp{Manifest: m, App: app})
	s.mu.Unlock()
	q := target.Query()
	q.Set("code", code)
	if st := r.PostFormValue("state"); st != "" {
		q.Set("state", st)
	}
	target.RawQuery = q.Encode()
	http.Redirect(w, r, target.String(), http.StatusFound)
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// conversionOf is GitHub's conversion response for manifest m: this server's
// App id and private key, a fresh webhook secret and OAuth credentials.
func (s *Server) conversionOf(m map[string]any, owner, base string) map[string]any {
	name, _ := m["name"].(string)
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	now := time.Now().UTC().Format(time.RFC3339)
	ownerType := "Organization"
	if owner == "acme" {
		ownerType = "User"
	}
	return map[string]any{
		"id": s.appID, "slug": slug, "node_id": "A_kwDOfake" + randHex(4), "name": name,
		"description": m["description"], "external_url": m["url"], "html_url": base + "/apps/" + slug,
		"owner":      map[string]any{"login": owner, "id": 1, "type": ownerType, "html_url": base + "/" + owner},
		"created_at": now, "updated_at": now,
		"permissions": m["default_permissions"], "events": m["default_events"],
		"client_id": "Iv1." + randHex(8), "client_secret": randHex(20), "webhook_secret": randHex(20),
		"pem": string(s.PrivateKeyPEM()),
	}
}

func page(w http.ResponseWriter, status int, body string, data any) {
	t := template.Must(template.New("page").Parse(`<!doctype html><html><head><meta charset="utf-8"><title>GitHub (fake)</title></head><body>` + body + `</body></html>`))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = t.Execute(w, data)
}
