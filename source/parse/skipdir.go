package parse

import "strings"

// SkippedDir reports whether the survey walks past a directory, by its name: version control
// and other hidden directories, build trees (what a build writes is not the project's
// source, and CMake's copies its sources' names), and vendored code (a project does not
// rewrite its dependencies, and counting them would count the same library once per
// project that vendors it).
func SkippedDir(name string) bool {
	switch strings.ToLower(name) {
	case "build", "_build", "builds", "cmakefiles", "node_modules",
		"third_party", "third-party", "thirdparty", "3rdparty", "vendor":
		return true
	}
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "cmake-build-")
}
