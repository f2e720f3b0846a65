package comments

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Fit keeps a body within limit characters. It cuts the inside of the
// collapsed tool-output block first (head and tail kept), so the fences,
// the <details> block and the hidden record stay whole.
func Fit(body string, limit int) string {
	if limit <= 0 {
		limit = Limit
	}
	if utf8.RuneCountInString(body) <= limit {
		return body
	}
	open, closeIdx := strings.Index(body, "```text\n"), strings.LastIndex(body, "\n```\n\n</details>")
	if open >= 0 && closeIdx > open {
		inner := body[open+len("```text\n") : closeIdx]
		over := utf8.RuneCountInString(body) - limit + 200
		if over < utf8.RuneCountInString(inner) {
			return body[:open+len("```text\n")] + cutMiddle(inner, over) + body[closeIdx:]
		}
	}
	// No block to cut (or not enough): keep the record, cut the prose.
	rec := ""
	if i := strings.LastIndex(body, outcomePrefix); i >= 0 {
		rec = "\n" + body[i:]
		body = body[:i]
	}
	keep := limit - utf8.RuneCountInString(rec) - 40
	r := []rune(body)
	return string(r[:max(keep, 0)]) + "\n\n[… cut to fit GitHub's limit]" + rec
}

// cutMiddle removes about n characters from the middle of s, on line
// boundaries, saying how many lines went.
func cutMiddle(s string, n int) string {
	lines := strings.Split(s, "\n")
	total := 0
	lo, hi := len(lines)/2, len(lines)/2
	for total < n && (lo > 0 || hi < len(lines)) {
		if lo > 0 {
			lo--
			total += utf8.RuneCountInString(lines[lo]) + 1
		}
		if total < n && hi < len(lines) {
			total += utf8.RuneCountInString(lines[hi]) + 1
			hi++
		}
	}
	if hi-lo <= 1 && total < n {
		r := []rune(s)
		half := max((len(r)-n)/2, 0)
		return string(r[:half]) + "\n[… output cut …]\n" + string(r[len(r)-half:])
	}
	note := fmt.Sprintf("[… %d lines cut …]", hi-lo)
	return strings.Join(lines[:lo], "\n") + "\n" + note + "\n" + strings.Join(lines[hi:], "\n")
}
