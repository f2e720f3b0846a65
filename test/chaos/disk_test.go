package chaos

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/gitfixture"
	"github.com/warden-bot/warden/test/world"
)

// blobSize is the incompressible file the repository grows by while the
// data directory is full: its fetch cannot fit in what is left.
const (
	blobSize = 4 << 20
	leftFree = 512 << 10
)

// The data directory is a small filesystem (see smallDisk for the modes).
// Once the mirror exists, the repository grows by a 4 MiB blob and the
// disk is filled to 512 KiB short: the next task's fetch fails mid-write.
// The issue gets a retryable outcome naming the cause; once space is
// freed the mirror passes git fsck, the retry completes, and so does the
// next issue, on the same mirror.
func TestDiskFullInDataDir(t *testing.T) {
	t.Parallel()
	dir, mode := smallDisk(t, 32<<20)
	t.Logf("disk-full mode: %s, data dir %s", mode, dir)
	opts := []world.Option{func(env map[string]string) { env["WARDEN_DATA_DIR"] = dir }}
	if mode == modeInject {
		opts = append(opts, gitShim(t, dir))
	}
	w := world.New(t, nil, opts...)
	w.Model.Script(world.HappyScript)
	mirror := filepath.Join(dir, "mirrors", world.Repo+".git")

	start := time.Now()
	label(t, w, 301, "warm")
	if rec := w.OutcomeOf(301, outcomeWait); rec.Outcome != outcome.Completed {
		t.Fatalf("before the disk filled: %+v", rec)
	}
	gitIn(t, mirror, "config", "chaos.marker", "the first mirror") // to know it later
	t.Logf("mirror made: %s", time.Since(start).Round(time.Second))

	blob := make([]byte, blobSize)
	rand.Read(blob)
	gitfixture.Commit(t, w.Bare, "main", map[string]string{"assets/blob.bin": string(blob)})
	filler := fill(t, dir, mode, leftFree)
	label(t, w, 302, "full")
	rec := w.OutcomeOf(302, outcomeWait)
	body := w.CommentWith(302, "<!-- warden:outcome")
	if rec.Outcome != outcome.Retryable && rec.Outcome != outcome.Deferred || rec.FailureClass != outcome.Transient ||
		!strings.Contains(body, "No space left on device") {
		t.Fatalf("with the disk full: record %+v\n%s\n--- bot logs ---\n%s", rec, body, world.Tail(w.Bot.Logs(), 6000))
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	fsck(t, mirror)
	t.Logf("disk full: %s, outcome %s/%s; space freed", time.Since(start).Round(time.Second), rec.Outcome, rec.FailureClass)

	w.Eventually(outcomeWait, func() bool { return completed(w, 302) }, "the retried task did not complete once space was freed")
	once(t, w, 302, 2) // the retryable outcome and the completed one
	t.Logf("retry completed: %s", time.Since(start).Round(time.Second))
	next(t, w, 303)
	t.Logf("next issue completed: %s", time.Since(start).Round(time.Second))
	fsck(t, mirror)
	if got := strings.TrimSpace(gitIn(t, mirror, "config", "chaos.marker")); got != "the first mirror" {
		t.Errorf("the mirror was replaced (marker %q)", got)
	}
	for _, p := range w.GH.Pulls(world.Repo) {
		if strings.Contains(p.Body, "Fixes #303\n") && len(gitfixture.ReadFile(t, w.Bare, p.Head, "assets/blob.bin")) != blobSize {
			t.Errorf("the next issue's branch %s is not based on the grown main", p.Head)
		}
	}
	if logs := w.Bot.Logs(); strings.Contains(logs, "panic") {
		t.Errorf("the bot logged a panic:\n%s", world.Tail(logs, 6000))
	}
}

// The ways smallDisk can make a small filesystem, in order of preference.
const (
	modeTmpfs  = "tmpfs"  // mount -t tmpfs -o size=…
	modeLoop   = "loop"   // an ext4 image file, mount -o loop
	modeInject = "inject" // no mount allowed: git itself reports the full disk
)

// smallDisk mounts a filesystem of size bytes on a new directory and
// unmounts it at cleanup (after the bot, whose cleanup runs first). When
// mounting is refused (no root, a sandbox) it falls back to modeInject and
// says so; WARDEN_CHAOS_DISK forces a mode, to try each on one machine.
func smallDisk(t *testing.T, size int64) (dir, mode string) {
	t.Helper()
	dir = t.TempDir()
	want := os.Getenv("WARDEN_CHAOS_DISK")
	if want == "" || want == modeTmpfs {
		out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+itoa(size), "tmpfs", dir).CombinedOutput()
		if err == nil {
			t.Cleanup(func() { unmount(t, dir) })
			return dir, modeTmpfs
		}
		t.Logf("tmpfs refused (%v: %s); trying a loop device", err, strings.TrimSpace(string(out)))
	}
	if want == "" || want == modeLoop {
		img := filepath.Join(t.TempDir(), "disk.img")
		if err := loopMount(img, dir, size); err == nil {
			t.Cleanup(func() { unmount(t, dir) })
			return dir, modeLoop
		} else {
			t.Logf("loop mount refused (%v); falling back to injecting the disk-full error into git", err)
		}
	}
	return dir, modeInject
}

func loopMount(img, dir string, size int64) error {
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		return err
	}
	if err := os.Truncate(img, size); err != nil {
		return err
	}
	// -m 0: no blocks reserved for root, so the fill leaves what it says.
	for _, args := range [][]string{{"mkfs.ext4", "-q", "-F", "-m", "0", img}, {"mount", "-o", "loop", img, dir}} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

func unmount(t *testing.T, dir string) {
	if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
		// A process still inside: detach now, the kernel frees it after.
		t.Logf("umount %s: %v: %s; detaching lazily", dir, err, out)
		_ = exec.Command("umount", "-l", dir).Run()
	}
}

// fill writes a file of zeros until leave bytes are free on dir's
// filesystem and returns its path; removing it frees the space. In
// modeInject it only creates the file, which tells gitShim the disk is full.
func fill(t *testing.T, dir, mode string, leave int64) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if mode == modeInject {
		return path
	}
	chunk := make([]byte, 64<<10)
	var size int64
	for free(t, dir) > leave+int64(len(chunk)) {
		n, err := f.Write(chunk)
		size += int64(n)
		if errors.Is(err, syscall.ENOSPC) {
			// ext4 counts blocks as free that a file cannot have: the
			// disk is full already, so give leave bytes back.
			if err = f.Truncate(max(size-leave, 0)); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("filling %s: %v", dir, err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	t.Logf("filled %s: %d KiB free", dir, free(t, dir)>>10)
	return path
}

func free(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bfree) * st.Bsize
}

// gitShim puts a git in front of the real one on the bot's PATH: while
// dir/filler exists, a fetch fails with the words git uses when the disk
// fills during a fetch, without touching the mirror. It is the honest
// fallback where nothing can be mounted: the error path is Warden's real
// one, the full disk is not.
func gitShim(t *testing.T, dir string) world.Option {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	script := "#!/bin/sh\nfor a in \"$@\"; do\n  if [ \"$a\" = fetch ] && [ -e '" + filepath.Join(dir, "filler") + "' ]; then\n" +
		"    echo 'fatal: unable to write loose object file: No space left on device' >&2\n    echo 'fatal: unpack-objects failed' >&2\n    exit 128\n  fi\ndone\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return func(env map[string]string) { env["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH") }
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
