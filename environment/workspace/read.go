package workspace

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// MaxRead is the most Warden reads of one worktree file into memory.
const MaxRead = 8 << 20

// ErrTooLarge is a worktree file over what Warden reads.
type ErrTooLarge struct {
	Path string
	Size int64
	Max  int64
}

func (e *ErrTooLarge) Error() string {
	return fmt.Sprintf("%s is %d bytes, over the %d bytes Warden reads", e.Path, e.Size, e.Max)
}

// readSmall reads a regular file of at most max bytes: its size is read
// first and a larger file is refused unread; a symbolic link at path or
// anything but a regular file is refused too. A file that grows while it is
// read yields at most max+1 bytes and the same refusal.
func readSmall(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > max {
		return nil, &ErrTooLarge{Path: path, Size: fi.Size(), Max: max}
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &ErrTooLarge{Path: path, Size: int64(len(b)), Max: max}
	}
	return b, nil
}

// countFileLines counts a file's lines in constant memory.
func countFileLines(path string) (int, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, last := 0, byte('\n')
	for {
		k, err := f.Read(buf)
		for _, c := range buf[:k] {
			if c == '\n' {
				n++
			}
		}
		if k > 0 {
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}
