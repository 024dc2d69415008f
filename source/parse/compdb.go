package parse

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
)

// CompileDB is a compile_commands.json, the file CMake (CMAKE_EXPORT_COMPILE_COMMANDS) and
// Bear write: one entry per source file with the directory the compiler ran in and its command
// line, in the "arguments" (a list) or "command" (one shell string) form.
type CompileDB struct {
	byFile map[string]Command
	// byReal is byFile by the files' paths with links resolved, made on the first miss: a
	// scan walks a tree by its real path, a database may name it through a link.
	byReal map[string]Command
	once   sync.Once
}

type compileEntry struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Arguments []string `json:"arguments"`
	Command   string   `json:"command"`
}

// maxCompileDB is the largest compile database read: a few times the largest real ones (a
// browser's, about 100 MB), and a bound for one that never ends.
const maxCompileDB = 512 << 20

// LoadCompileDB reads a compile_commands.json. Relative directories are relative to the
// file's own directory, relative files to their entry's directory.
func LoadCompileDB(path string) (*CompileDB, error) {
	b, err := readRegular(path, maxCompileDB)
	if err != nil {
		return nil, fmt.Errorf("reading compile commands %s: %w", path, err)
	}
	var entries []compileEntry
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("reading compile commands %s: %w (expected a JSON array of {directory, file, arguments or command})", path, err)
	}
	base, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("reading compile commands: %w", err)
	}
	db := &CompileDB{byFile: map[string]Command{}}
	for i, e := range entries {
		args := e.Arguments
		if len(args) == 0 {
			if args, err = splitCommand(e.Command); err != nil {
				return nil, fmt.Errorf("reading compile commands %s: entry %d: %w", path, i, err)
			}
		}
		if e.File == "" || len(args) == 0 {
			return nil, fmt.Errorf("reading compile commands %s: entry %d has no file or no command", path, i)
		}
		dir := abs(e.Directory, base)
		if e.Directory == "" {
			dir = base
		}
		file := filepath.Clean(abs(e.File, dir))
		// args[0] is the compiler; the file itself and -c/-o go with the rest of the
		// code-generation flags buildFlags drops.
		db.byFile[file] = Command{Dir: dir, File: file, Args: args[1:]}
	}
	return db, nil
}

// Lookup returns the command for a file, by its absolute path.
func (db *CompileDB) Lookup(file string) (Command, bool) {
	a, err := filepath.Abs(file)
	if err != nil {
		return Command{}, false
	}
	if c, ok := db.byFile[filepath.Clean(a)]; ok {
		return c, true
	}
	db.once.Do(func() {
		db.byReal = map[string]Command{}
		for f, c := range db.byFile {
			if r, err := filepath.EvalSymlinks(f); err == nil {
				db.byReal[r] = c
			}
		}
	})
	r, err := filepath.EvalSymlinks(a)
	if err != nil {
		return Command{}, false
	}
	c, ok := db.byReal[r]
	return c, ok
}

// Files are the source files the database names.
func (db *CompileDB) Files() []string {
	out := make([]string, 0, len(db.byFile))
	for f := range db.byFile {
		out = append(out, f)
	}
	return out
}

// splitCommand splits a "command" string as a POSIX shell would, for the quoting compile
// databases use: single and double quotes and backslash escapes, no expansions.
func splitCommand(cmd string) ([]string, error) {
	var args []string
	var cur strings.Builder
	in := false // inside a word
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '\\' && i+1 < len(cmd):
			i++
			cur.WriteByte(cmd[i])
			in = true
		case c == '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in command")
			}
			cur.WriteString(cmd[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(cmd) && cmd[i] != '"'; i++ {
				if cmd[i] == '\\' && i+1 < len(cmd) && strings.IndexByte(`"\$`+"`", cmd[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(cmd[i])
			}
			if i >= len(cmd) {
				return nil, fmt.Errorf("unterminated \" in command")
			}
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				args = append(args, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		args = append(args, cur.String())
	}
	return args, nil
}
