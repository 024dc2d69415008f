package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/internal/sourcetest"
)

// corpusPair is one `pair` line of a corpus program's .expect file (testdata/source/corpus,
// README.md there).
type corpusPair struct {
	function, host, device string // function "" for any
	safe                   bool
	cond                   int // 1..4; 0 for none named
	status                 plan.Condition
	line, why, construct   string
}

// readExpect reads a .expect file: its pairs, and whether the program runs on the emulator.
func readExpect(t *testing.T, path string) ([]corpusPair, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusPair
	emulator := false
	for n, line := range strings.Split(string(b), "\n") {
		toks, err := expectTokens(line)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n+1, err)
		}
		if len(toks) == 0 || strings.HasPrefix(toks[0], "#") {
			continue
		}
		bad := func(why string) { t.Fatalf("%s:%d: %s: %q", path, n+1, why, line) }
		switch toks[0] {
		case "emulator":
			emulator = true
			continue
		case "checksum":
			continue // what it prints on the emulator (cmd/echoctl's TestSourceCorpusRoundTrip)
		case "pair":
		default:
			bad("unknown directive")
		}
		if len(toks) < 3 {
			bad("want pair [FUNCTION:]HOST/DEVICE safe|declined …")
		}
		var p corpusPair
		spec := toks[1]
		if i := strings.LastIndex(spec, ":"); i >= 0 {
			p.function, spec = spec[:i], spec[i+1:]
		}
		sides := strings.SplitN(spec, "/", 2)
		if len(sides) != 2 {
			bad("want HOST/DEVICE")
		}
		p.host, p.device = sides[0], sides[1]
		switch toks[2] {
		case "safe":
			p.safe = true
		case "declined":
		default:
			bad("want safe or declined")
		}
		rest := toks[3:]
		if len(rest) >= 2 && regexp.MustCompile(`^S[1-4]$`).MatchString(rest[0]) {
			p.cond = int(rest[0][1] - '0')
			p.status = plan.Condition(strings.ReplaceAll(rest[1], "-", " "))
			rest = rest[2:]
		}
		for ; len(rest) >= 2; rest = rest[2:] {
			switch rest[0] {
			case "line":
				p.line = rest[1]
			case "why":
				p.why = rest[1]
			case "construct":
				p.construct = rest[1]
			default:
				bad("unknown key " + rest[0])
			}
		}
		if len(rest) != 0 {
			bad("a key without its value")
		}
		out = append(out, p)
	}
	return out, emulator
}

// expectTokens splits a line into words and "quoted strings" (no escapes inside).
func expectTokens(line string) ([]string, error) {
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			end := strings.IndexByte(line[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("an unterminated quote")
			}
			out = append(out, line[1:end+1])
			line = line[end+2:]
			continue
		}
		end := strings.IndexAny(line, " \t")
		if end < 0 {
			end = len(line)
		}
		out = append(out, line[:end])
		line = line[end:]
	}
	return out, nil
}

// lineWith is the number of the first line of src holding text; 0 for none.
func lineWith(src, text string) int {
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	return 0
}

// TestCorpusVerdicts proves every program of the verdict corpus (testdata/source/corpus) and
// checks each pair against its .expect file: proved or declined, the deciding condition, its
// status, line, reason and construct; a pair the file does not name, or one it names that the
// analysis does not find, fails.
func TestCorpusVerdicts(t *testing.T) {
	sourcetest.NeedClang(t)
	dir, _ := filepath.Abs("../../testdata/source/corpus")
	files, _ := filepath.Glob(filepath.Join(dir, "*.cu"))
	if len(files) < 15 {
		t.Fatalf("%d programs in %s, want the whole corpus", len(files), dir)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".cu"), func(t *testing.T) {
			t.Parallel()
			want, _ := readExpect(t, strings.TrimSuffix(f, ".cu")+".expect")
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src := string(b)
			tu := sourcetest.Parse(t, f)
			matched := map[int]bool{}
			for _, p := range Prove(tu) {
				i := -1
				for j, w := range want {
					if w.host == p.Host && w.device == p.Device && (w.function == "" || w.function == p.Function) && !matched[j] {
						i = j
						break
					}
				}
				if i < 0 {
					t.Errorf("%s %s/%s: a pair the .expect file does not name (%s)", p.Function, p.Host, p.Device, p.Declined())
					continue
				}
				matched[i] = true
				checkCorpusPair(t, src, want[i], p)
			}
			for i, w := range want {
				if !matched[i] {
					t.Errorf("%s/%s: named in the .expect file, not found", w.host, w.device)
				}
			}
		})
	}
}

func checkCorpusPair(t *testing.T, src string, w corpusPair, p Proof) {
	t.Helper()
	name := p.Function + " " + p.Host + "/" + p.Device
	if p.Safe() != w.safe {
		t.Errorf("%s: safe = %v, want %v (%s)", name, p.Safe(), w.safe, p.Declined())
	}
	for i, v := range p.Verdicts {
		if i+1 != w.cond && v.Status != plan.ConditionHolds && w.safe {
			t.Errorf("%s: %s %s at line %d (%s), want holds", name, v.Cond, v.Status, v.At.Line, v.Reason)
		}
	}
	if w.cond == 0 {
		return
	}
	v := p.Verdicts[w.cond-1]
	if !w.safe && !strings.HasPrefix(p.Declined(), v.Cond+" ") {
		t.Errorf("%s: declined for %q, want for %s", name, p.Declined(), v.Cond)
	}
	if v.Status != w.status {
		t.Errorf("%s: %s %s (%s), want %s", name, v.Cond, v.Status, v.Reason, w.status)
	}
	if w.line != "" {
		if l := lineWith(src, w.line); l == 0 || v.At.Line != l {
			t.Errorf("%s: %s at line %d (%s), want line %d, the one with %q", name, v.Cond, v.At.Line, v.Reason, l, w.line)
		}
	}
	if w.why != "" {
		why := regexp.MustCompile(`@\{[^}]*\}`).ReplaceAllStringFunc(w.why, func(m string) string {
			return fmt.Sprint(lineWith(src, m[2:len(m)-1]))
		})
		if !strings.Contains(v.Reason, why) {
			t.Errorf("%s: %s's reason %q, want it to say %q", name, v.Cond, v.Reason, why)
		}
	}
	if c := p.Construct(); !w.safe && string(c) != w.construct {
		t.Errorf("%s: declined for the construct %q, want %q", name, c, w.construct)
	}
	if string(v.Construct) != w.construct {
		t.Errorf("%s: %s's construct %q, want %q", name, v.Cond, v.Construct, w.construct)
	}
}
