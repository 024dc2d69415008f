package source

import (
	"strings"

	"github.com/echo-uma/echo/plan"
)

// summary is what a function in the translation unit does with each pointer parameter, seen
// from its callers: the events its body has on that parameter (flow-insensitively: a call is
// one step), and whether it returns a host allocation (the corpus's host_alloc).
type summary struct {
	name        string          // the function's name, with an instantiation's template arguments
	params      []*Node         // the ParmVarDecls
	effects     map[int][]event // by parameter index
	launchArgs  map[int]int     // parameter index of an argument array → index of the kernel parameter
	copies      []helperCopy    // the H2D and D2H copies of a parameter's buffer
	launches    bool            // it launches GPU work (on any buffer)
	launchAt    Loc             // the first such launch
	endsSynced  bool            // it waits for all GPU work before it returns (endsSynced)
	freeOnly    bool            // it does nothing but free (freeWrapper)
	returnsHost bool
	sizeParam   int
	busy        bool
}

// helperCopy is a copy inside a function between a parameter's buffer and another (a
// parameter's too, or one of the function's own: -1).
type helperCopy struct {
	dst, src int // parameter indexes, -1 for none
	dir      plan.CopyDirection
	sync     bool
	at       Loc
}

// known runtime calls that touch no pointer in a way the proofs must see beyond what call
// handles below; a followed pointer passed to any other function without a body is declined.
var quietCalls = map[string]bool{
	"cudaGetErrorString": true, "cudaGetErrorName": true, "cudaGetLastError": true,
	"cudaPeekAtLastError": true, "cudaSetDevice": true, "cudaGetDevice": true,
	"cudaStreamCreate": true, "cudaStreamDestroy": true, "cudaEventCreate": true,
	"cudaEventRecord": true, "cudaEventDestroy": true, "cudaEventSynchronize": true,
	"cudaEventElapsedTime": true, "cudaDeviceGetAttribute": true,
}

var printCalls = map[string]bool{"printf": true, "fprintf": true, "sprintf": true, "snprintf": true, "puts": true, "fputs": true, "dprintf": true}

func (e *effects) call(c *Node) {
	name := c.Callee()
	args := c.Args()
	at := c.Range.Begin
	if c.Kind == "CUDAKernelCallExpr" {
		if cfg := c.Config(); cfg != nil {
			e.visit(cfg, useValue)
		}
		e.launch(e.kernelAccess(c.CalleeRef()), func(i int) (DeclID, bool) {
			if i < len(args) {
				v := e.ptrVar(args[i])
				return v, v != 0
			}
			return 0, false
		}, len(args), at)
		for _, a := range args {
			if e.ptrVar(a) == 0 {
				e.visit(a, useValue)
			}
		}
		return
	}
	arg := func(i int) *Node {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	rest := func(from int) {
		for i := from; i < len(args); i++ {
			e.visit(args[i], useValue)
		}
	}
	switch name {
	case "cudaMalloc", "cudaMallocAsync", "cudaMallocHost", "cudaHostAlloc":
		if r := addrOf(arg(0)); r != nil && e.tracked[r.ID] {
			kind := allocDevice
			if name == "cudaMallocHost" || name == "cudaHostAlloc" {
				kind = allocHost
			}
			e.emit(event{kind: evDef, v: r.ID, at: at, alloc: kind, size: e.size(arg(1))})
			rest(1)
			return
		}
	case "cudaMemcpy", "cudaMemcpyAsync":
		if len(args) >= 4 {
			ev := event{kind: evCopy, at: at, dst: e.basePtr(args[0]), src: e.basePtr(args[1]),
				sync: name == "cudaMemcpy", copySize: e.size(args[2]), dstExpr: args[0], srcExpr: args[1]}
			if k := Unwrap(args[3]); k.Kind == "DeclRefExpr" && k.Ref != nil {
				switch k.Ref.Name {
				case "cudaMemcpyHostToDevice":
					ev.dir = plan.CopyH2D
				case "cudaMemcpyDeviceToHost":
					ev.dir = plan.CopyD2H
				}
			}
			// A copy through a pointer into a buffer (p + i) is not a full-buffer copy.
			if e.ptrVar(args[0]) == 0 || e.ptrVar(args[1]) == 0 {
				ev.copySize = ""
			}
			e.emit(ev)
			rest(2)
			return
		}
	case "memcpy", "memmove", "memset":
		if v := e.basePtr(arg(0)); v != 0 {
			e.emit(event{kind: evWrite, v: v, at: at})
		}
		if v := e.basePtr(arg(1)); v != 0 && name != "memset" {
			e.emit(event{kind: evRead, v: v, at: at})
		}
		for i := range args {
			if e.basePtr(args[i]) == 0 {
				e.visit(args[i], useValue)
			}
		}
		return
	case "memcmp", "bcmp", "memchr", "fwrite", "fread":
		// Host reads of a buffer (a verify step's memcmp, a dump's fwrite), and fread's write.
		for i, a := range args {
			v := e.basePtr(a)
			switch {
			case v != 0 && i == 0 && name == "fread":
				e.emit(event{kind: evWrite, v: v, at: at})
			case v != 0 && (i == 0 || i == 1 && (name == "memcmp" || name == "bcmp")):
				e.emit(event{kind: evRead, v: v, at: at})
			default:
				e.visit(a, useValue)
			}
		}
		return
	case "cudaMemset", "cudaMemsetAsync":
		// GPU work in stream order that writes the buffer and reads none of it: the proofs see
		// a host read of the host side after it as the live value it is
		// (unsafe_memset_read.cu), and the D2H copy after it as what brings its values back.
		if v := e.ptrVar(arg(0)); v != 0 {
			e.emit(event{kind: evLaunch, v: v, at: at, gpuWrites: true, fills: true, copySize: e.size(arg(2))})
			rest(1)
			return
		}
		if v := e.basePtr(arg(0)); v != 0 { // into the buffer (d + off): part of it, written
			e.emit(event{kind: evLaunch, v: v, at: at, gpuWrites: true})
			rest(1)
			return
		}
	case "free", "cudaFree", "cudaFreeHost", "cudaFreeAsync":
		if v := e.ptrVar(arg(0)); v != 0 {
			e.emit(event{kind: evFree, v: v, at: at})
			rest(1)
			return
		}
	case "__ldg": // a read-only load
		if v := e.basePtr(arg(0)); v != 0 {
			e.emit(event{kind: evRead, v: v, at: at})
			rest(1)
			return
		}
	case "cudaDeviceSynchronize", "cudaThreadSynchronize":
		e.emit(event{kind: evSync, at: at})
		return
	case "cudaLaunchKernel":
		if len(args) >= 4 {
			e.launchThrough(args[3], e.kernelAccess(kernelRef(arg(0))), at)
			for i, a := range args[1:] {
				if i+1 != 3 {
					e.visit(a, useValue)
				}
			}
			return
		}
	}
	if printCalls[name] {
		for _, a := range args {
			if v := e.basePtr(a); v != 0 {
				e.emit(event{kind: evEscape, v: v, at: at, refused: true, why: "printed by " + name})
			} else {
				e.visit(a, useValue)
			}
		}
		return
	}
	if s := e.summarizeFn(e.body(c.CalleeRef())); s != nil && c.Kind == "CallExpr" {
		e.applySummary(s, c, args, at)
		return
	}
	e.visit(c.Inner[0], useIgnore)
	if gpuLibrary(name) {
		e.emit(event{kind: evLaunch, at: at}) // GPU work the host does not wait for
	}
	for _, a := range args {
		if v := e.basePtr(a); v != 0 && !quietCalls[name] {
			what := name
			if what == "" {
				what = "a function pointer"
			}
			e.emit(event{kind: evEscape, v: v, at: at, why: "passed to " + what + ", whose body is not in the translation unit"})
			continue
		}
		if r := addrOf(a); r != nil && !e.tracked[r.ID] {
			e.emit(event{kind: evAssign, v: r.ID, at: at})
			continue
		}
		e.visit(a, useValue)
	}
}

// kernelRef is the kernel a launch call's first argument names (k, &k, (void *)k,
// k<float>); nil for a pointer variable or anything else.
func kernelRef(n *Node) *Ref {
	k := Unwrap(n)
	if k != nil && k.Kind == "UnaryOperator" && k.Opcode == "&" && len(k.Inner) == 1 {
		k = Unwrap(k.Inner[0])
	}
	if k == nil || k.Ref == nil || k.Ref.Kind != "FunctionDecl" {
		return nil
	}
	return k.Ref
}

// launchThrough is a launch whose argument array is the expression a: a local array of &v.
func (e *effects) launchThrough(a *Node, acc kernelAccess, at Loc) {
	u := Unwrap(a)
	if u.Kind == "DeclRefExpr" && u.Ref != nil {
		if slots, ok := e.argArrays[u.Ref.ID]; ok {
			e.launch(acc, func(i int) (DeclID, bool) {
				if i < len(slots) && slots[i].tracked {
					return slots[i].v, true
				}
				return 0, false
			}, len(slots), at)
			return
		}
	}
	e.visit(a, useValue)
}

// launch emits one launch event per followed pointer argument: a kernel parameter the body
// only reads through (kernelAccess, kernels.go) is only read; any other, or any argument of a
// kernel the analysis cannot read all of, may be written, and the event says how.
func (e *effects) launch(acc kernelAccess, argVar func(int) (DeclID, bool), n int, at Loc) {
	any := false
	for i := 0; i < n; i++ {
		v, ok := argVar(i)
		if !ok {
			continue
		}
		k := acc.at(i)
		e.emit(event{kind: evLaunch, v: v, at: at, gpuWrites: !k.readOnly, why: k.why})
		any = true
	}
	if !any {
		e.emit(event{kind: evLaunch, at: at})
	}
}

// applySummary maps a visible callee's effects on its parameters to the caller's arguments.
func (e *effects) applySummary(s *summary, c *Node, args []*Node, at Loc) {
	e.visit(c.Inner[0], useIgnore)
	name := s.name
	for i, a := range args {
		if k, ok := s.launchArgs[i]; ok {
			var kref *Ref
			if k >= 0 && k < len(args) {
				kref = kernelRef(args[k])
			}
			e.launchThrough(a, e.kernelAccess(kref), at)
			continue
		}
		byRef := i < len(s.params) && strings.Contains(s.params[i].Type, "&")
		v := e.basePtr(a)
		if v == 0 {
			if r := addrOf(a); r != nil && !e.tracked[r.ID] {
				// &x given to a pointer parameter: x may change unless the body only reads
				// through it (its type's const says nothing: it can be cast away).
				if i < len(s.params) && onlyReads(s.effects[i]) {
					continue
				}
				e.emit(event{kind: evAssign, v: r.ID, at: at})
				continue
			}
			if r := rootVar(a); byRef && r != nil && !e.tracked[r.ID] {
				e.emit(event{kind: evAssign, v: r.ID, at: at}) // bound to a reference: it may change
			}
			e.visit(a, useValue)
			continue
		}
		if byRef {
			e.emit(event{kind: evEscape, v: v, at: at, why: "passed by reference to " + name + ", which may change the pointer"})
			continue
		}
		for _, ev := range s.effects[i] {
			if ev.fromCopy {
				continue // the copy itself is given below
			}
			ev.v = v
			if ev.kind == evFree && ev.via == "" {
				ev.via, ev.viaFreeOnly = name, s.freeOnly
			}
			if ev.kind == evEscape {
				ev.why = "in " + name + ": " + ev.why
			} else {
				if ev.origin.Line == 0 {
					ev.origin, ev.originFn = ev.at, name
				}
				ev.at = at // the call is the step the caller sees
			}
			e.emit(ev)
		}
	}
	for _, hc := range s.copies {
		ev := event{kind: evCopy, at: at, dir: hc.dir, sync: hc.sync, via: name, origin: hc.at, originFn: name}
		if hc.dst >= 0 && hc.dst < len(args) {
			ev.dst, ev.dstExpr = e.basePtr(args[hc.dst]), args[hc.dst]
		}
		if hc.src >= 0 && hc.src < len(args) {
			ev.src, ev.srcExpr = e.basePtr(args[hc.src]), args[hc.src]
		}
		e.emit(ev)
	}
	if s.launches {
		// GPU work on buffers the caller does not see: it may be in flight after the call.
		e.emit(event{kind: evLaunch, at: at, origin: s.launchAt, originFn: name})
	}
	if s.endsSynced {
		e.emit(event{kind: evSync, at: at})
	}
}

func onlyReads(evs []event) bool {
	for _, ev := range evs {
		if ev.kind != evRead {
			return false
		}
	}
	return true
}

// summarize analyses a function in the translation unit once by its name, where one function
// has it; nil when there is none.
func (e *effects) summarize(name string) *summary {
	if e.overloaded[name] {
		return nil
	}
	return e.summarizeFn(e.funcs[name])
}

// summarizeFn analyses a function with a body once; nil for none, or when it is being
// analysed (recursion is declined by the caller as an unknown function).
func (e *effects) summarizeFn(fn *Node) *summary {
	if fn == nil || funcBody(fn) == nil {
		return nil
	}
	if s, ok := e.summaries[fn]; ok {
		if s.busy {
			return nil
		}
		return s
	}
	s := &summary{name: fn.Name + templateArgs(fn), effects: map[int][]event{}, launchArgs: map[int]int{}, sizeParam: -1, busy: true}
	e.summaries[fn] = s
	idx := map[DeclID]int{}
	for _, p := range fn.Inner {
		if p.Kind == "ParmVarDecl" {
			idx[p.ID] = len(s.params)
			s.params = append(s.params, p)
		}
	}
	sub := e.sub(map[DeclID]bool{})
	for id, i := range idx {
		if isPointerType(s.params[i].Type) {
			sub.tracked[id] = true
		}
	}
	body := funcBody(fn)
	var evs []event
	body.Walk(func(n *Node) bool {
		switch n.Kind {
		case "CompoundStmt", "IfStmt", "ForStmt", "WhileStmt", "DoStmt":
			return true
		}
		if n.Kind != "" {
			evs = append(evs, sub.stmtEvents(n)...)
			// A launch helper: cudaLaunchKernel(kernel, …, args, …) with both parameters.
			n.Walk(func(c *Node) bool {
				if isCall(c.Kind) && c.Callee() == "cudaLaunchKernel" && len(c.Args()) >= 4 {
					a, k := Unwrap(c.Args()[3]), Unwrap(c.Args()[0])
					if a.Kind == "DeclRefExpr" && a.Ref != nil {
						if i, ok := idx[a.Ref.ID]; ok {
							s.launchArgs[i] = -1
							if k.Kind == "DeclRefExpr" && k.Ref != nil {
								if j, ok := idx[k.Ref.ID]; ok {
									s.launchArgs[i] = j
								}
							}
						}
					}
				}
				return true
			})
		}
		return false
	})
	param := func(v DeclID) int {
		if i, ok := idx[v]; ok && v != 0 {
			return i
		}
		return -1
	}
	for _, ev := range evs {
		if ev.kind == evLaunch && !s.launches {
			s.launches, s.launchAt = true, ev.at
			if ev.origin.Line != 0 {
				s.launchAt = ev.origin
			}
		}
		if ev.kind == evCopy && (ev.dir == plan.CopyH2D || ev.dir == plan.CopyD2H) && (param(ev.dst) >= 0 || param(ev.src) >= 0) {
			// A copy between a buffer the caller gives and any other: the caller sees the
			// copy (made inside this function), not a read and a write.
			s.copies = append(s.copies, helperCopy{dst: param(ev.dst), src: param(ev.src), dir: ev.dir, sync: ev.sync, at: ev.at})
		}
		for _, v := range []DeclID{ev.v, ev.dst, ev.src} {
			i := param(v)
			if i < 0 {
				continue
			}
			if _, la := s.launchArgs[i]; la {
				continue
			}
			x := ev
			if ev.kind == evCopy {
				// A copy inside a helper is also a read or write of the parameter (what a
				// kernel's reader and a caller that is given the copy itself skip).
				x = event{kind: evRead, at: ev.at, fromCopy: ev.dir == plan.CopyH2D || ev.dir == plan.CopyD2H}
				if v == ev.dst {
					x.kind = evWrite
				}
			}
			s.effects[i] = append(s.effects[i], x)
		}
	}
	s.endsSynced = s.launches && e.endsSynced(body)
	s.freeOnly = e.freeWrapper(fn)
	s.returnsHost, s.sizeParam = returnsHostAlloc(fn, idx, e)
	s.busy = false
	return s
}

// endsSynced reports whether a function's body ends by waiting for all GPU work: a
// synchronize (cudaDeviceSynchronize, or a synchronous cudaMemcpy) that runs whenever the
// function returns — a top-level statement, or one in a macro's do { } while (0) — after the
// last statement that may launch.
func (e *effects) endsSynced(body *Node) bool {
	synced, launched, early := false, false, false
	var top func(stmts []*Node)
	top = func(stmts []*Node) {
		for _, st := range stmts {
			if st.Kind != "ReturnStmt" {
				st.Walk(func(n *Node) bool {
					// A return before the end: it must not leave GPU work in flight.
					early = early || n.Kind == "ReturnStmt" && launched && !synced
					return true
				})
			}
			if st.Kind == "DoStmt" && len(st.Inner) == 2 && isNull(st.Inner[1]) && st.Inner[0].Kind == "CompoundStmt" {
				top(st.Inner[0].Inner)
				continue
			}
			launches, syncs := false, false
			st.Walk(func(n *Node) bool {
				if n.Kind == "CUDAKernelCallExpr" {
					launches = true
				} else if isCall(n.Kind) {
					switch n.Callee() {
					case "cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaMemcpy":
						syncs = true
					case "cudaLaunchKernel", "cudaLaunchCooperativeKernel":
						launches = true
					default:
						if gpuLibrary(n.Callee()) {
							launches = true
						} else if s := e.summarizeFn(e.body(n.CalleeRef())); s == nil && e.body(n.CalleeRef()) != nil || s != nil && s.launches && !s.endsSynced {
							launches = true
						}
					}
				}
				return true
			})
			switch st.Kind {
			case "IfStmt", "ForStmt", "WhileStmt", "DoStmt", "SwitchStmt", "CXXForRangeStmt":
				syncs = false // it may not run
			}
			if launches {
				synced, launched = false, true
			} else if syncs {
				synced = true
			}
		}
	}
	top(body.Inner)
	return synced && !early
}

// gpuLibrary reports whether a function without a body here is one of the CUDA libraries'
// (cuBLAS, cuFFT, cuRAND, cuSPARSE, cuSOLVER, cuDNN, NCCL), which start GPU work the host does
// not wait for.
func gpuLibrary(name string) bool {
	for _, p := range []string{"cublas", "cufft", "curand", "cusparse", "cusolver", "cudnn", "nccl"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// returnsHostAlloc reports whether every return of fn returns a local pointer whose every
// value is a host allocation (or null), all of the same size parameter.
func returnsHostAlloc(fn *Node, idx map[DeclID]int, e *effects) (bool, int) {
	body := funcBody(fn)
	var ret DeclID
	ok := true
	body.Walk(func(n *Node) bool {
		if n.Kind == "ReturnStmt" {
			if len(n.Inner) != 1 {
				ok = false
				return false
			}
			r := Unwrap(n.Inner[0])
			if r.Kind != "DeclRefExpr" || r.Ref == nil || (ret != 0 && r.Ref.ID != ret) {
				ok = false
				return false
			}
			ret = r.Ref.ID
		}
		return true
	})
	if !ok || ret == 0 {
		return false, -1
	}
	sub := e.sub(map[DeclID]bool{ret: true})
	sub.aliases = nil
	var evs []event
	body.Walk(func(n *Node) bool {
		switch n.Kind {
		case "CompoundStmt", "IfStmt", "ForStmt", "WhileStmt", "DoStmt":
			return true
		}
		evs = append(evs, sub.stmtEvents(n)...)
		return false
	})
	size, host := -2, false
	for _, ev := range evs {
		if ev.v != ret || ev.kind != evDef {
			continue
		}
		if ev.alloc == allocOther {
			if ev.at != declLoc(body, ret) {
				return false, -1 // an assignment of something other than an allocation
			}
			continue // the declaration's initializer, checked to be null below
		}
		if ev.alloc != allocHost {
			return false, -1
		}
		host = true
		p := -1
		for id, i := range idx {
			if ev.size == "v"+idString(id) {
				p = i
			}
		}
		if p < 0 || (size != -2 && size != p) {
			return false, -1
		}
		size = p
	}
	// Every other definition must be null: a VarDecl init or assignment of a null constant.
	nullOnly := true
	body.Walk(func(n *Node) bool {
		if n.Kind == "VarDecl" && n.ID == ret && len(n.Inner) > 0 && !isNull(n.Inner[len(n.Inner)-1]) {
			nullOnly = false
		}
		return true
	})
	if !host || !nullOnly {
		return false, -1
	}
	return true, size
}

func declLoc(body *Node, id DeclID) Loc {
	var l Loc
	body.Walk(func(n *Node) bool {
		if n.Kind == "VarDecl" && n.ID == id {
			l = n.Loc
		}
		return true
	})
	return l
}
