package githubapp_test

import (
	"context"
	"sync"
	"testing"

	"github.com/warden-bot/warden/githubapp"
	"github.com/warden-bot/warden/test/fakegithub"
)

// Tasks that start together (a run and its "queued" update) ask GitHub for
// the App's identity once: one GET /app and one GET /users/<bot>.
func TestIdentityAskedOnce(t *testing.T) {
	gh := fakegithub.New()
	t.Cleanup(gh.Close)
	gh.AddInstallation(7)
	app, err := githubapp.New(githubapp.Options{AppID: gh.AppID(), PrivateKey: gh.PrivateKeyPEM(), BaseURL: gh.URL() + "/"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := app.BotID(context.Background(), 7); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if a, u := gh.CountCalls("GET", "/app"), gh.CountCalls("GET", "/users/"); a != 1 || u != 1 {
		t.Fatalf("GET /app %d times, GET /users %d times; want once each", a, u)
	}
}
