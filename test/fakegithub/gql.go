package fakegithub

import "strings"

// The shapes GitHub's GraphQL answers share across the queries the fake
// serves (headquery.go, issuequery.go, rules.go).

// gqlError is one NOT_FOUND error at path.
func gqlError(msg string, path ...any) map[string]any {
	return map[string]any{"type": "NOT_FOUND", "path": path, "message": msg}
}

// gqlNotFound is an answer with data (nil or what did resolve) and one
// NOT_FOUND error.
func gqlNotFound(data any, msg string, path ...any) map[string]any {
	return map[string]any{"data": data, "errors": []any{gqlError(msg, path...)}}
}

func gqlNoRepo(owner, name string) map[string]any {
	return gqlNotFound(map[string]any{"repository": nil}, "Could not resolve to a Repository with the name '"+owner+"/"+name+"'.", "repository")
}

// gqlActor is a login as GraphQL gives it: an App's bot is a Bot whose
// login has no "[bot]".
func gqlActor(login string) map[string]any {
	if bot, ok := strings.CutSuffix(login, "[bot]"); ok {
		return map[string]any{"__typename": "Bot", "login": bot}
	}
	return map[string]any{"__typename": "User", "login": login}
}

// gqlEnum is an enum value in capitals, or null for "".
func gqlEnum(v string) any {
	if v == "" {
		return nil
	}
	return strings.ToUpper(v)
}

func nullable(v string) any {
	if v == "" {
		return nil
	}
	return v
}
