package setup

import (
	"crypto/subtle"
	"html/template"
	"net"
	"net/http"
	"regexp"
)

// GitHub's manifest codes are short opaque tokens; anything else is refused
// before it reaches a URL path.
var codeRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,200}$`)

func (s *Server) routes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.bindBrowser(s.index))
	m.HandleFunc("GET /callback", s.boundOnly(s.callback))
	return s.localOnly(m)
}

// localOnly refuses requests addressed to another host name, so a page that
// rebinds its DNS name to 127.0.0.1 cannot read the state or call back.
func (s *Server) localOnly(next http.Handler) http.Handler {
	_, port, _ := net.SplitHostPort(s.ln.Addr().String())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host != "127.0.0.1:"+port && r.Host != "localhost:"+port {
			http.Error(w, "bot setup answers only on 127.0.0.1", http.StatusMisdirectedRequest)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	render(w, http.StatusOK, indexPage, map[string]any{
		"Action": s.action, "Manifest": s.manifest, "Org": s.o.Org,
		"WebhookURL": s.hookURL, "Placeholder": s.o.PublicURL == "", "EnvPath": s.o.EnvPath,
	})
}

func (s *Server) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(s.state)) != 1 {
		render(w, http.StatusBadRequest, errorPage, "This callback does not carry the state this setup sent, so it was refused. Start again from the setup page.")
		return
	}
	code := q.Get("code")
	if !codeRE.MatchString(code) {
		render(w, http.StatusBadRequest, errorPage, "GitHub's callback carries no valid code.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		render(w, http.StatusConflict, errorPage, "This setup has already finished.")
		return
	}
	res, err := s.complete(r.Context(), code)
	defer s.finish(res, err) // once the page is written
	if err != nil {
		render(w, http.StatusBadGateway, errorPage, err.Error())
		return
	}
	render(w, http.StatusOK, donePage, res)
}

func render(w http.ResponseWriter, status int, t *template.Template, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = t.Execute(w, data)
}

const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Warden setup</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}button{font-size:1rem;padding:.5rem 1rem}</style></head><body>`

var indexPage = template.Must(template.New("index").Parse(head + `
<h1>Register Warden as a GitHub App</h1>
<p>This sends Warden's App manifest (permissions and events from <code>deploy/app.yml</code>) to GitHub,
which creates the App {{if .Org}}for the organization <b>{{.Org}}</b>{{else}}for your account{{end}} once you confirm there.
GitHub then sends you back here and the App's id, private key and webhook secret are written to <code>{{.EnvPath}}</code>.</p>
<p>Webhook URL: <code>{{.WebhookURL}}</code>{{if .Placeholder}} — a placeholder, because no public URL was given
(<code>--public-url</code> or <code>WARDEN_PUBLIC_URL</code>): change it in the App's settings once Warden is reachable.{{end}}</p>
<form action="{{.Action}}" method="post">
<input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit" id="register">Register GitHub App</button>
</form>
</body></html>`))

var donePage = template.Must(template.New("done").Parse(head + `
<h1>GitHub App created</h1>
<p>Created <a href="{{.HTMLURL}}">{{.Name}}</a> (App id {{.AppID}}). Its id, private key and webhook secret
are in <code>{{.EnvPath}}</code> (mode 0600); keep that file private.</p>
{{if .PlaceholderURL}}<p>The webhook URL is the placeholder <code>{{.WebhookURL}}</code>: set it to
<code>https://&lt;your host&gt;/webhooks</code> in the App's settings.</p>{{end}}
{{if .NoHookSecret}}<p>GitHub returned no webhook secret: set one in the App's settings and in <code>WARDEN_WEBHOOK_SECRET</code>.</p>{{end}}
<p>Next: <a id="install" href="{{.InstallURL}}">install the App</a> on the repositories Warden may work on, then start it:
<code>set -a; . ./.env; set +a; bin/bot serve</code>. You can close this page.</p>
</body></html>`))

var errorPage = template.Must(template.New("error").Parse(head + `
<h1>Setup failed</h1>
<p id="error">{{.}}</p>
</body></html>`))
