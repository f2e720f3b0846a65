package setup

import (
	"crypto/subtle"
	"net/http"
)

// bindCookie holds the one-time token of the URL printed to the terminal:
// only the browser that opened that URL may see the state or complete the
// setup. Another local user can reach 127.0.0.1 too, but not the terminal.
const bindCookie = "warden_setup"

// StartURL is the setup page with its one-time token, the URL to print.
func (s *Server) StartURL() string { return s.URL() + "/?token=" + s.token }

// bindBrowser serves the page to the browser that brought the token (and
// gives it the cookie) or already holds the cookie; anyone else is refused.
func (s *Server) bindBrowser(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if t := r.URL.Query().Get("token"); t != "" && s.matches(t) {
			// Lax: GitHub's redirect back to /callback is a top-level GET, which carries it.
			http.SetCookie(w, &http.Cookie{Name: bindCookie, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
			next(w, r)
			return
		}
		s.boundOnly(next)(w, r)
	}
}

// boundOnly refuses a browser without the setup's cookie.
func (s *Server) boundOnly(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(bindCookie)
		if err != nil || !s.matches(c.Value) {
			render(w, http.StatusForbidden, errorPage, "Open the setup URL printed in the terminal that ran `bot setup`: only that browser may complete it.")
			return
		}
		next(w, r)
	}
}

func (s *Server) matches(v string) bool {
	return subtle.ConstantTimeCompare([]byte(v), []byte(s.token)) == 1
}
