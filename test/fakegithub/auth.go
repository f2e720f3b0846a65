package fakegithub

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// appRoutes need the App's JWT; manifest conversions and the manifest flow's
// web pages need nothing; the rest need an installation token.
func (s *Server) authorized(r *http.Request) bool {
	p := r.URL.Path
	if strings.HasPrefix(p, "/app-manifests/") || isWebPath(p) || strings.HasPrefix(p, "/_logs/") {
		return true
	}
	auth := r.Header.Get("Authorization")
	if p == "/app" || strings.HasPrefix(p, "/app/") {
		jwt, ok := strings.CutPrefix(auth, "Bearer ")
		return ok && s.validJWT(jwt)
	}
	tok := strings.TrimPrefix(strings.TrimPrefix(auth, "token "), "Bearer ")
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.tokens[tok]
	return ok
}

// validJWT checks an RS256 App JWT against the App's key, issuer and expiry.
func (s *Server) validJWT(tok string) bool {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return false
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(&s.key.PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return false
	}
	var claims struct {
		Iss any   `json:"iss"`
		Exp int64 `json:"exp"`
	}
	if json.Unmarshal(raw, &claims) != nil {
		return false
	}
	return fmt.Sprint(claims.Iss) == strconv.FormatInt(s.appID, 10) && claims.Exp > time.Now().Unix()
}

func (s *Server) getApp(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{"id": s.appID, "slug": "warden-test", "name": "Warden Test", "owner": map[string]any{"login": "acme"}})
}

// BotUserID is the user id of the App's bot account (BotLogin).
const BotUserID = 41990001

// getUser answers for the App's bot account only.
func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("user") != BotLogin {
		notFound(w)
		return
	}
	writeJSON(w, 200, map[string]any{"login": BotLogin, "id": BotUserID, "type": "Bot"})
}

func (s *Server) accessToken(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.installs[id] {
		writeJSON(w, 404, map[string]string{"message": "Not Found"})
		return
	}
	tok := "ghs_" + randHex(18)
	s.tokens[tok] = id
	writeJSON(w, 201, map[string]any{"token": tok, "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
}

func (s *Server) conversion(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	app, ok := s.conversions[r.PathValue("code")]
	delete(s.conversions, r.PathValue("code"))
	s.mu.Unlock()
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, 201, app)
}
