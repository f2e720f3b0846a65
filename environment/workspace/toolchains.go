package workspace

import (
	"log/slog"
	"os/exec"
	"strings"
)

// workerToolchains are the programs inferred test commands start with.
var workerToolchains = []string{"go", "node", "python3", "cargo", "java", "ruby"}

// visibleRoots are where a program on the worker is visible in the sandbox
// without an image (its system directories and tool roots).
var visibleRoots = []string{"/usr/", "/bin/", "/sbin/", "/opt/", "/nix/", "/snap/"}

// WorkerToolchains lists the toolchains a sandbox without an image finds.
func WorkerToolchains() []string {
	var found []string
	for _, t := range workerToolchains {
		if p, err := exec.LookPath(t); err == nil && underRoot(p) {
			found = append(found, t)
		}
	}
	return found
}

func underRoot(p string) bool {
	for _, r := range visibleRoots {
		if strings.HasPrefix(p, r) {
			return true
		}
	}
	return false
}

// NoToolchainProblem is the operator's warning when repositories that name
// no image have nothing to run their tests with: no WARDEN_DEFAULT_IMAGE and
// no toolchain on the worker. Empty when either exists.
func NoToolchainProblem(defaultImage string) string {
	if defaultImage != "" || len(WorkerToolchains()) > 0 {
		return ""
	}
	return "no WARDEN_DEFAULT_IMAGE and no toolchain (" + strings.Join(workerToolchains, ", ") + ") on the worker: tasks of repositories that name no image (image: in .github/warden.yml or .devcontainer/devcontainer.json) end blocked; set WARDEN_DEFAULT_IMAGE or build the worker image with the toolchains they need (see deploy/)"
}

// WarnToolchains logs, at start, the default image or the worker's
// toolchains, and warns when there is neither.
func WarnToolchains(log *slog.Logger, defaultImage string) {
	if p := NoToolchainProblem(defaultImage); p != "" {
		log.Warn("no toolchain for repository commands", "problem", p)
		return
	}
	log.Info("repository toolchains", "default_image", defaultImage, "worker_toolchains", strings.Join(WorkerToolchains(), ","))
}
