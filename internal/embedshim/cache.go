package embedshim

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// CacheDir is where Extract puts the library: $ECHO_CACHE_DIR; else, for root,
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
	b, sum := Shim()
	if b == nil {
		return "", errors.New("this echoctl carries no preload library (built with go build or go install, not make)")
	}
	base, err := CacheDir()
	if err != nil {
		return "", err
	}
	return extract(base, b, sum)
}

// extract is Extract for the library b, whose SHA-256 is sum, under base. What is missing
// above base is made, private to this user (0700, as the XDG spec asks of ~/.cache): a new
// user, or one who never ran anything that caches, has no ~/.cache yet.
func extract(base string, b []byte, sum string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o700); err != nil {
		return "", fmt.Errorf("making the preload library's cache: %w", err)
	}
	dir := filepath.Join(base, "shim-"+sum[:16])
	for _, d := range []string{base, dir} {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("making the preload library's cache: %w", err)
		}
		if err := private(d); err != nil {
			return "", err
		}
	}
	path := filepath.Join(dir, "libechoshim.so")
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, b) {
		return path, nil
	}
	tmp, err := os.CreateTemp(dir, ".libechoshim-*.so")
	if err != nil {
		return "", fmt.Errorf("writing the preload library: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing the preload library: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("writing the preload library: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("writing the preload library: %w", err)
	}
	return path, nil
}

// private refuses a directory another user owns or may write into.
func private(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("the preload library's cache %s is not a directory", dir)
	case !ok || int(st.Uid) != os.Geteuid():
		return fmt.Errorf("the preload library's cache %s belongs to another user: another user could swap the library", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("the preload library's cache %s is writable by others (%v): another user could swap the library", dir, fi.Mode().Perm())
	}
	return nil
}
