package source

import (
	"fmt"
	"strings"
)

// pathFlow runs a forward dataflow over one function's graph for what the rewrite must know
// besides S1–S4: how many kernel passes a pair's device side gets between its copies
// (access.go) and whether every buffer the rewrite adds is freed exactly once on every path
// that freed the original (lifetime.go). As the proofs do (pairAnalysis), paths are kept
// apart by the branch conditions they took while the variables those conditions read are
// unchanged; unlike them, states are never joined: each distinct state is its own path
// group, so what holds together on one path (this side freed, that one not) stays together.
// The states are small enough (a few flags) for that to stay bounded.
type pathFlow[S comparable] struct {
	g      *CFG
	stmtEv map[*Node][]event
	// step applies one event; stmt, when set, one statement before its events (an exit()
	// call, say).
	step func(S, event) S
	stmt func(S, *Node) S
	deps map[string][]DeclID // a branch fact's key → the variables it reads
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
func functionFlow(e *effects, fn *Node) (*CFG, map[*Node][]event, error) {
	e.tracked, e.argArrays, e.aliases = localPointers(fn), map[DeclID][]argSlot{}, nil
	e.stable = stableInits(fn)
	g, err := BuildCFG(fn)
	if err != nil {
		return nil, nil, err
	}
	stmtEv := map[*Node][]event{}
	for _, b := range g.Blocks {
		for _, s := range b.Stmts {
			stmtEv[s] = e.stmtEvents(s)
		}
	}
	return g, stmtEv, nil
}

// run starts every path at the entry in init and returns the states that reach the exit
// (by a return, the end of the body, or exit()).
func (p *pathFlow[S]) run(init S) ([]S, error) {
	p.deps = map[string][]DeclID{}
	in := make([]pathSet[S], len(p.g.Blocks))
	in[p.g.Entry] = pathSet[S]{{"", init}: true}
	work := []int{p.g.Entry}
	queued := map[int]bool{p.g.Entry: true}
	for len(work) > 0 {
		id := work[0]
		work = work[1:]
		queued[id] = false
		cur := pathSet[S]{}
		for k := range in[id] {
			cur[k] = true
		}
		b := p.g.Blocks[id]
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
	for k := range in[p.g.Exit] {
		out = append(out, k.s)
	}
	return out, nil
}

func (p *pathFlow[S]) statement(cur pathSet[S], st *Node) pathSet[S] {
	if p.stmt != nil {
		next := pathSet[S]{}
		for k := range cur {
			next[pathKey[S]{k.facts, p.stmt(k.s, st)}] = true
		}
		cur = next
	}
	for _, ev := range p.stmtEv[st] {
		next := pathSet[S]{}
		for k := range cur {
			facts := k.facts
			if ev.kind == evAssign {
				facts = p.kill(facts, ev.v)
			}
			next[pathKey[S]{facts, p.step(k.s, ev)}] = true
		}
		cur = next
	}
	return cur
}

// branch keeps the paths on which cond can have the value when, and records that it has
// (pairAnalysis.branch).
func (p *pathFlow[S]) branch(f pathSet[S], cond *Node, when bool) pathSet[S] {
	c := Unwrap(cond)
	for c.Kind == "UnaryOperator" && c.Opcode == "!" && len(c.Inner) == 1 {
		c, when = Unwrap(c.Inner[0]), !when
	}
	key := sizeKey(c)
	if strings.Contains(key, "?") {
		return f
	}
	p.deps[key] = sizeVars(c)
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
func (p *pathFlow[S]) kill(key string, v DeclID) string {
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
