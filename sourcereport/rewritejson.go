package sourcereport

import (
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/rewrite"
	"github.com/echo-uma/echo/source/rules"
)

// The echo.rewrite/2 document (docs/json.md).
type RewriteDoc struct {
	Schema   string            `json:"schema"`
	Strategy string            `json:"strategy"`
	Device   string            `json:"device"`
	DeviceBy string            `json:"device_from"`
	Files    []rewriteFileJSON `json:"files"`
}

type rewriteFileJSON struct {
	Path      string            `json:"path"`
	PathBytes []byte            `json:"path_bytes,omitempty"` // the name, where it is not UTF-8
	CompileDB string            `json:"compile_commands,omitempty"`
	Flags     []string          `json:"assumed_flags"`         // what the proofs hold for
	Notices   []string          `json:"notices,omitempty"`     // databases ignored, flags dropped
	Errors    int               `json:"errors,omitempty"`      // errors clang recovered from
	FirstErr  string            `json:"first_error,omitempty"` // the first of them
	Changed   bool              `json:"changed"`
	Written   string            `json:"written,omitempty"` // with -w: written, unchanged, left, not written
	Pairs     []rewritePairJSON `json:"pairs"`
}

type rewritePairJSON struct {
	Function string                 `json:"function"`
	Host     string                 `json:"host"`
	Device   string                 `json:"device"`
	Verdicts map[string]verdictJSON `json:"verdicts"`
	Changed  bool                   `json:"changed"`
	Strategy string                 `json:"strategy,omitempty"`
	Reason   string                 `json:"reason"`
	Choice   string                 `json:"choice,omitempty"`
	OnePass  bool                   `json:"one_pass"`
	Access   string                 `json:"access,omitempty"`
	// With --trace: what the traced run spent in the pair's linking copies.
	Copies   *int     `json:"copies,omitempty"`
	CopyMS   *float64 `json:"copy_ms,omitempty"`
	Bytes    *uint64  `json:"copy_bytes,omitempty"`
	KernelMS *float64 `json:"kernel_ms,omitempty"`
}

type verdictJSON struct {
	Holds  bool   `json:"holds"`
	Status string `json:"status"`
	Line   int    `json:"line"`
	Why    string `json:"why"`
}

func RewriteDocOf(files []*rewrite.FileRewrite, s plan.Strategy, d rules.Device, how string, w *rewrite.Written) RewriteDoc {
	doc := RewriteDoc{Schema: SchemaRewrite, Strategy: string(s), Device: string(d), DeviceBy: how, Files: []rewriteFileJSON{}}
	for _, fr := range files {
		f := rewriteFileJSON{Path: fr.Path, PathBytes: pathBytes(fr.Path), CompileDB: fr.CompileDB, Flags: nonNil(fr.Flags),
			Notices: fr.Notices, Errors: fr.Errors, FirstErr: fr.FirstError, Changed: string(fr.After) != string(fr.Before), Written: writtenWord(w, fr.Path), Pairs: []rewritePairJSON{}}
		for _, c := range fr.Changes {
			p := rewritePairJSON{Function: c.Function, Host: c.Host, Device: c.Device, Changed: c.Changed, Strategy: string(c.Strategy),
				Reason: c.Reason, Choice: c.Choice, OnePass: c.Access.OnePass, Access: c.Access.Why, Verdicts: map[string]verdictJSON{}}
			if m := c.Measured; m != nil {
				n, ms, kms, b := int(m.Count), float64(m.NS)/1e6, float64(m.WaitNS)/1e6, m.Bytes
				p.Copies, p.CopyMS, p.KernelMS, p.Bytes = &n, &ms, &kms, &b
			}
			for _, v := range c.Verdicts {
				p.Verdicts[v.Cond] = verdictJSON{Holds: v.Status == plan.ConditionHolds || v.Status == plan.ConditionKeepWait,
					Status: string(v.Status), Line: v.At.Line, Why: v.Reason}
			}
			f.Pairs = append(f.Pairs, p)
		}
		doc.Files = append(doc.Files, f)
	}
	return doc
}
