package main

import (
	"bytes"
	"testing"
)

// Every subcommand's --help (and -h) prints its usage and exits 0, as
// `bot --help` does; a help request is not a usage error.
func TestEverySubcommandHelpExits0(t *testing.T) {
	for _, sub := range []string{"serve", "run", "observe", "context", "setup", "gocacheprog", "version"} {
		for _, flag := range []string{"--help", "-h"} {
			var stdout, stderr bytes.Buffer
			if code := run([]string{sub, flag}, envOf(nil), &stdout, &stderr); code != 0 {
				t.Errorf("bot %s %s: exit %d, stderr %q", sub, flag, code, stderr.String())
			}
			if stdout.Len()+stderr.Len() == 0 {
				t.Errorf("bot %s %s printed nothing", sub, flag)
			}
		}
	}
}
