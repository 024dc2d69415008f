package embedshim

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/echo-uma/echo/internal/outfile"
)

// CacheDir is Echo's cache, where Extract puts the library and echoctl run keeps the
// deployments it derives (CacheSubdir): $ECHO_CACHE_DIR; else, for root,
// /var/cache/echo; else $XDG_CACHE_HOME/echo or ~/.cache/echo.
func CacheDir() (string, error) {
	if d := os.Getenv("ECHO_CACHE_DIR"); d != "" {
		return d, nil
	}
	if os.Geteuid() == 0 {
		return "/var/cache/echo", nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding a cache directory for the preload library: %w", err)
	}
	return filepath.Join(d, "echo"), nil
}

// Extract writes the embedded library to DIR/shim-SHA256/libechoshim.so, once, and returns
// its path. The directories must belong to this user and be writable by nobody else, so no
// other user can swap the file a program then preloads; a file already there is used only
// if its content is the embedded one, and is replaced otherwise.
func Extract() (string, error) {
	return extractEmbedded("shim", "libechoshim", "preload library")
}

// ExtractClangOut is Extract for libechoclangout (clangout/clangout.c), which the source path
// preloads into clang, to DIR/clangout-SHA256/libechoclangout.so.
func ExtractClangOut() (string, error) {
	return extractEmbedded("clangout", "libechoclangout", "libechoclangout")
}

// extractEmbedded writes the embedded library NAME (embedded) to DIR/PREFIX-SHA256/NAME.so;
// what names it in the error of an echoctl that carries none.
func extractEmbedded(prefix, name, what string) (string, error) {
	b, sum := embedded(name)
	if b == nil {
		return "", fmt.Errorf("this echoctl carries no %s (built with go build or go install, not make)", what)
	}
	base, err := CacheDir()
	if err != nil {
		return "", err
	}
	return extractAs(base, prefix, name+".so", b, sum)
}

// extractAs writes b, whose SHA-256 is sum, to base/PREFIX-SHA256/file, once (Extract).
func extractAs(base, prefix, file string, b []byte, sum string) (string, error) {
	dir, err := privateDir(base, prefix+"-"+sum[:16])
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, file)
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, b) {
		return path, nil
	}
	if err := outfile.Replace(path, b, 0o644); err != nil {
		return "", fmt.Errorf("writing the preload library %s: %w", file, err)
	}
	return path, nil
}

// CacheSubdir is the directory name in Echo's cache (CacheDir), made where missing, as the
// library's is: refused where it or the cache belongs to another user or others may write
// into it, since whoever can put a file there chooses what a program runs.
func CacheSubdir(name string) (string, error) {
	base, err := CacheDir()
	if err != nil {
		return "", err
	}
	return privateDir(base, name)
}

// privateDir makes base/name where missing and checks base and it (private). What is missing
// above base is made, private to this user (0700, as the XDG spec asks of ~/.cache): a new
// user, or one who never ran anything that caches, has no ~/.cache yet.
func privateDir(base, name string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o700); err != nil {
		return "", fmt.Errorf("making the cache %s: %w", base, err)
	}
	dir := filepath.Join(base, name)
	for _, d := range []string{base, dir} {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("making the cache %s: %w", base, err)
		}
		if err := private(d, true); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// PrivateFile refuses a file in Echo's cache that another user owns or may write, or that
// is a symbolic link: a program would run with what it holds.
func PrivateFile(path string) error {
	return private(path, false)
}

// private refuses a directory (or, dir unset, a regular file) of Echo's cache that another
// user owns or may write into.
func private(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case dir && !fi.IsDir():
		return fmt.Errorf("the cache %s is not a directory", path)
	case !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("the cache %s is not a regular file", path)
	case !ok || int(st.Uid) != os.Geteuid():
		return fmt.Errorf("the cache %s belongs to another user: another user could swap what it holds", path)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("the cache %s is writable by others (%v): another user could swap what it holds", path, fi.Mode().Perm())
	}
	return nil
}
