package guards

import (
	"io/fs"
	"os"
)

// OSLinker is the real file system, for production use of ResolveInside.
type OSLinker struct{}

// Lstat implements Linker.
func (OSLinker) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// Readlink implements Linker.
func (OSLinker) Readlink(name string) (string, error) { return os.Readlink(name) }
