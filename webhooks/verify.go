// Package webhooks is Warden's front door: it verifies GitHub's signature,
// caps and parses the body, drops duplicate deliveries, gates on the sender's
// permission and turns events into queue operations. It never touches git or
// models, and it writes nothing to GitHub: replies go through the queue.
package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
)

// ErrSignature is a missing or wrong X-Hub-Signature-256.
var ErrSignature = errors.New("missing or invalid X-Hub-Signature-256")

// Verify checks body against an X-Hub-Signature-256 header value in constant
// time. An empty secret verifies nothing: fail closed (go-github's
// ValidatePayload would accept an unsigned body in that case).
func Verify(secret []byte, header string, body []byte) error {
	if len(secret) == 0 {
		return ErrSignature
	}
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return ErrSignature
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || len(got) != sha256.Size {
		return ErrSignature
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return ErrSignature
	}
	return nil
}

func hmacHex(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}
