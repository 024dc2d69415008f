package rules

import (
	"fmt"
	"strings"

	"github.com/echo-uma/echo/source/facts"
	"github.com/echo-uma/echo/source/parse"
)

// pathFlow runs a forward dataflow over one function's graph for what the rewrite must know
// besides S1–S4: how many kernel passes a pair's device side gets between its copies
// (access.go) and whether every buffer the rewrite adds is freed exactly once on every path
// that freed the original (lifetime.go). As the proofs do (pairAnalysis), paths are kept
// apart by the branch conditions they took while the variables those conditions read are
// unchanged; unlike them, states are never joined: each distinct state is its own path
// group, so what holds together on one path (this side freed, that one not) stays together.
// The states are small enough (a few flags) for that to stay bounded.
type PathFlow[S comparable] struct {
	G      *facts.CFG
	StmtEv map[*parse.Node][]facts.Event
	// Step applies one event; Stmt, when set, one statement before its events (an exit()
	// call, say).
	Step func(S, facts.Event) S
	Stmt func(S, *parse.Node) S
	deps map[string][]parse.DeclID // a branch fact's key → the variables it reads
}

type pathKey[S comparable] struct {
	facts string
	s     S
}

type pathSet[S comparable] map[pathKey[S]]bool

// maxPaths bounds the path groups of one block; past it the function is not followed.
const maxPaths = 4096

// functionFlow is a function's graph and the events of each of its statements, as the proofs
// compute them (proveFunction), with e set up for fn.
func FunctionFlow(e *facts.Effects, fn *parse.Node) (*facts.CFG, map[*parse.Node][]facts.Event, error) {
	e.Tracked, e.ArgArrays, e.Aliases = facts.LocalPointers(fn), map[parse.DeclID][]facts.ArgSlot{}, nil
	e.Stable = facts.StableInits(fn)
	g, err := facts.BuildCFG(fn)
	if err != nil {
		return nil, nil, err
	}
	stmtEv := map[*parse.Node][]facts.Event{}
	for _, b := range g.Blocks {
		for _, s := range b.Stmts {
			stmtEv[s] = e.StmtEvents(s)
		}
	}
	return g, stmtEv, nil
}

// run starts every path at the entry in init and returns the states that reach the exit
// (by a return, the end of the body, or exit()).
func (p *PathFlow[S]) Run(init S) ([]S, error) {
	p.deps = map[string][]parse.DeclID{}
	in := make([]pathSet[S], len(p.G.Blocks))
	in[p.G.Entry] = pathSet[S]{{"", init}: true}
	work := []int{p.G.Entry}
	queued := map[int]bool{p.G.Entry: true}
	for len(work) > 0 {
		id := work[0]
		work = work[1:]
		queued[id] = false
		cur := pathSet[S]{}
		for k := range in[id] {
			cur[k] = true
		}
		b := p.G.Blocks[id]
		for _, st := range b.Stmts {
			cur = p.statement(cur, st)
		}
		for _, e := range b.Succs {
			next := cur
			if e.Cond != nil {
				next = p.branch(cur, e.Cond, e.When)
			}
			if in[e.To] == nil {
				in[e.To] = pathSet[S]{}
			}
			grew := false
			for k := range next {
				if !in[e.To][k] {
					in[e.To][k], grew = true, true
				}
			}
			if len(in[e.To]) > maxPaths {
				return nil, fmt.Errorf("more than %d groups of paths: not followed", maxPaths)
			}
			if grew && !queued[e.To] {
				queued[e.To] = true
				work = append(work, e.To)
			}
		}
	}
	var out []S
	for k := range in[p.G.Exit] {
		out = append(out, k.s)
	}
	return out, nil
}

func (p *PathFlow[S]) statement(cur pathSet[S], st *parse.Node) pathSet[S] {
	if p.Stmt != nil {
		next := pathSet[S]{}
		for k := range cur {
			next[pathKey[S]{k.facts, p.Stmt(k.s, st)}] = true
		}
		cur = next
	}
	for _, ev := range p.StmtEv[st] {
		next := pathSet[S]{}
		for k := range cur {
			known := k.facts
			if ev.Kind == facts.EvAssign {
				known = p.kill(known, ev.V)
			}
			next[pathKey[S]{known, p.Step(k.s, ev)}] = true
		}
		cur = next
	}
	return cur
}

// branch keeps the paths on which cond can have the value when, and records that it has
// (pairAnalysis.branch).
func (p *PathFlow[S]) branch(f pathSet[S], cond *parse.Node, when bool) pathSet[S] {
	c := parse.Unwrap(cond)
	for c.Kind == "UnaryOperator" && c.Opcode == "!" && len(c.Inner) == 1 {
		c, when = parse.Unwrap(c.Inner[0]), !when
	}
	key := facts.SizeKey(c)
	if strings.Contains(key, "?") {
		return f
	}
	p.deps[key] = facts.SizeVars(c)
	val := "0"
	if when {
		val = "1"
	}
	out := pathSet[S]{}
	for k := range f {
		facts := splitFacts(k.facts)
		if old, ok := facts[key]; ok {
			if old != val {
				continue
			}
		} else {
			facts[key] = val
		}
		out[pathKey[S]{joinFacts(facts), k.s}] = true
	}
	return out
}

// kill drops the facts that read v.
func (p *PathFlow[S]) kill(key string, v parse.DeclID) string {
	facts := splitFacts(key)
	for fk := range facts {
		for _, d := range p.deps[fk] {
			if d == v {
				delete(facts, fk)
			}
		}
	}
	return joinFacts(facts)
}
