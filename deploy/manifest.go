// Package deploy holds Warden's deployment files; Go code sees only the
// GitHub App manifest, which `bot setup` posts to GitHub.
package deploy

import _ "embed"

// AppManifest is app.yml, the GitHub App manifest (YAML).
//
//go:embed app.yml
var AppManifest []byte
