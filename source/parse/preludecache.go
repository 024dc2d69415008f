package parse

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// The prelude and its precompiled forms are kept between runs, in the user's cache directory
// (~/.cache/echo/source/KEY): precompiling the prelude with the C++ library takes a second or
// two, which a scan pays once for hundreds of files but a one-file rewrite paid on every run
// (0.6 s became 2.6 s). KEY is a hash of the prelude's bytes and of the clang that parses
// them (its path and version), so another echoctl or another clang gets a directory of its
// own; clang itself refuses a precompiled header whose inputs changed. The directory is used
// only where it is the user's own and nobody else may write it (a precompiled header is code
// clang loads); otherwise the session writes its prelude and headers under its temporary
// directory, as before.

// cacheKeep is how long a directory of another key is kept after its last use.
const cacheKeep = 30 * 24 * time.Hour

// preludeCache is the cache directory for this prelude and driver, with the prelude written
// in it (KEY/prelude); "" where there is none to use.
func PreludeCache(driver string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	root := filepath.Join(base, "echo", "source")
	if err := os.MkdirAll(root, 0o700); err != nil || !ownedPrivate(root) || !ownedPrivate(filepath.Dir(root)) {
		return ""
	}
	key, err := preludeKey(driver)
	if err != nil {
		return ""
	}
	dir := filepath.Join(root, key)
	if _, err := os.Stat(filepath.Join(dir, "prelude")); err != nil {
		if !fillCache(root, dir) {
			return ""
		}
		pruneCache(root, key)
	}
	now := time.Now()
	os.Chtimes(dir, now, now) // its last use, for pruneCache
	return dir
}

// fillCache writes the prelude into a new directory beside dir and renames it to dir, so
// that a run never sees half a prelude; another run that got there first wins.
func fillCache(root, dir string) bool {
	tmp, err := os.MkdirTemp(root, ".new-")
	if err != nil {
		return false
	}
	if _, err := writePrelude(tmp); err != nil {
		os.RemoveAll(tmp)
		return false
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		_, err := os.Stat(filepath.Join(dir, "prelude"))
		return err == nil
	}
	return true
}

// pruneCache removes the directories of other keys unused for cacheKeep, and half-written
// ones as old.
func pruneCache(root, key string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Name() == key || !e.IsDir() {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > cacheKeep {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

// preludeKey hashes the prelude's files and the driver: its resolved path and what it says
// of its version.
func preludeKey(driver string) (string, error) {
	path, err := exec.LookPath(driver)
	if err != nil {
		return "", err
	}
	if path, err = filepath.EvalSymlinks(path); err != nil {
		return "", err
	}
	version, err := exec.Command(path, "--version").Output()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", path, version)
	err = fs.WalkDir(preludeFiles, "prelude", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := preludeFiles.ReadFile(p)
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return err
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// ownedPrivate reports whether dir is a directory of this user's that no one else may write.
func ownedPrivate(dir string) bool {
	info, err := os.Lstat(dir)
	if err != nil || !info.IsDir() {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid() && info.Mode().Perm()&0o022 == 0
}
