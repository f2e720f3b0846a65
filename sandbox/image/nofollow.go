package image

import "syscall"

// syscallNoFollow makes creating a file fail rather than follow a symbolic
// link planted at its name.
const syscallNoFollow = syscall.O_NOFOLLOW
