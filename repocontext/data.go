package repocontext

import "regexp"

// fenceTag matches tags that could close the prompt's data fences early.
var fenceTag = regexp.MustCompile(`(?i)<(\s*/?\s*(?:issue|instructions|file)\b[^<>]*)>`)

// data quotes repository text inside the prompt: verbatim, except that a tag
// in it cannot close a fence and pass what follows as instructions.
func data(s string) string { return fenceTag.ReplaceAllString(s, "‹$1›") }
