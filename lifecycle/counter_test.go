package lifecycle

import "context"

// Get reads a count of the in-memory counter (gatefake_test.go).
func (m *memCounter) Get(_ context.Context, key string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n[key], nil
}
