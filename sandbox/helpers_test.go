package sandbox

import (
	"strconv"
	"sync"
)

func itoa(n int) string { return strconv.Itoa(n) }

func syncOnce() sync.Once { return sync.Once{} }
