package outcome

import (
	"errors"
	"fmt"
	"time"
)

// Error is a failure that already knows its class. Stages return it when they
// can say for certain what went wrong; everything else goes through Classify.
type Error struct {
	Class Class
	Stage string
	// Msg is short and fit for a maintainer; Err is the cause, if any.
	Msg string
	Err error
	// Output is tool output worth quoting (test output, git stderr); may be long.
	Output string
	// RetryAfter is a server's hint (429, secondary rate limits); zero when absent.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	prefix := string(e.Class)
	if e.Stage != "" {
		prefix = e.Stage + ": " + prefix
	}
	switch {
	case e.Msg != "" && e.Err != nil:
		return fmt.Sprintf("%s: %s: %v", prefix, e.Msg, e.Err)
	case e.Msg != "":
		return prefix + ": " + e.Msg
	case e.Err != nil:
		return fmt.Sprintf("%s: %v", prefix, e.Err)
	}
	return prefix
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds a classified error with a formatted message.
func Errorf(class Class, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Class: class, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// ClassOf returns the class of the first *Error in err's chain, or None.
func ClassOf(err error) Class {
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return None
}
