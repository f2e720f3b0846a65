package githubapp_test

import (
	"context"
	"sync"
	"testing"

	"github.com/warden-bot/warden/github/githubapp"
	"github.com/warden-bot/warden/test/fakegithub"
)

// Tasks that start together (a run and its "queued" update) ask GitHub for
// the App's identity once: one GET /app and one GET /users/<bot>.
func TestIdentityAskedOnce(t *testing.T) {
	gh, app := fakeApp(t)
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

// The bot's user id named in the answer to a comment Warden posted spares
// the GET /users/<bot>; an id named for another login is not taken.
func TestBotIDLearnedFromAnAnswer(t *testing.T) {
	gh, app := fakeApp(t)
	login, err := app.BotLogin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	app.LearnBotID("alice", 1)
	app.LearnBotID(login, 4242)
	id, err := app.BotID(context.Background(), 7)
	if err != nil || id != 4242 {
		t.Fatalf("BotID = %d, %v; want 4242", id, err)
	}
	if n := gh.CountCalls("GET", "/users/"); n != 0 {
		t.Fatalf("GET /users %d times after the id was learned", n)
	}
}

// fakeApp is an App of the fake GitHub, installed as installation 7.
func fakeApp(t *testing.T) (*fakegithub.Server, *githubapp.App) {
	t.Helper()
	gh := fakegithub.New()
	t.Cleanup(gh.Close)
	gh.AddInstallation(7)
	app, err := githubapp.New(githubapp.Options{AppID: gh.AppID(), PrivateKey: gh.PrivateKeyPEM(), BaseURL: gh.URL() + "/"})
	if err != nil {
		t.Fatal(err)
	}
	return gh, app
}
