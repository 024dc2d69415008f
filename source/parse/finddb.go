package parse

import (
	"os"
	"path/filepath"
)

// FindCompileDB is the compile_commands.json in the file's directory or the nearest parent
// that has one; "" when none has.
func FindCompileDB(file string) string {
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, "compile_commands.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}
