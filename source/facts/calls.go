package facts

import (
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/parse"
)

// summary is what a function in the translation unit does with each pointer parameter, seen
// from its callers: the events its body has on that parameter (flow-insensitively: a call is
// one step), and whether it returns a host allocation (the corpus's host_alloc).
type summary struct {
	name        string          // the function's name, with an instantiation's template arguments
	params      []*parse.Node   // the ParmVarDecls
	effects     map[int][]Event // by parameter index
	LaunchArgs  map[int]int     // parameter index of an argument array → index of the kernel parameter
	copies      []helperCopy    // the H2D and D2H copies of a parameter's buffer
	launches    bool            // it launches GPU work (on any buffer)
	launchAt    parse.Loc       // the first such launch
	endsSynced  bool            // it waits for all GPU work before it returns (endsSynced)
	freeOnly    bool            // it does nothing but free (freeWrapper)
	ReturnsHost bool
	SizeParam   int
	busy        bool
}

// helperCopy is a copy inside a function between a parameter's buffer and another (a
// parameter's too, or one of the function's own: -1).
type helperCopy struct {
	dst, src int // parameter indexes, -1 for none
	dir      plan.CopyDirection
	sync     bool
	at       parse.Loc
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

var PrintCalls = map[string]bool{"printf": true, "fprintf": true, "sprintf": true, "snprintf": true, "puts": true, "fputs": true, "dprintf": true}

func (e *Effects) call(c *parse.Node) {
	name := c.Callee()
	args := c.Args()
	at := c.Range.Begin
	if c.Kind == "CUDAKernelCallExpr" {
		e.kernelCall(c, args, at)
		return
	}
	if e.runtimeCall(name, args, at) {
		return
	}
	if PrintCalls[name] {
		for _, a := range args {
			if v := e.BasePtr(a); v != 0 {
				e.emit(Event{Kind: EvEscape, V: v, At: at, Refused: true, Why: "printed by " + name})
			} else {
				e.visit(a, useValue)
			}
		}
		return
	}
	if s := e.summarizeFn(e.Body(c.CalleeRef())); s != nil && c.Kind == "CallExpr" {
		e.applySummary(s, c, args, at)
		return
	}
	e.opaqueCall(c, name, args, at)
}

// kernelCall: a launch written f<<<…>>>(args).
func (e *Effects) kernelCall(c *parse.Node, args []*parse.Node, at parse.Loc) {
	if cfg := c.Config(); cfg != nil {
		e.visit(cfg, useValue)
	}
	e.launch(e.kernelAccess(c.CalleeRef()), func(i int) (parse.DeclID, bool) {
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
}

// argAt is the call's argument i; nil past the last.
func argAt(args []*parse.Node, i int) *parse.Node {
	if i < len(args) {
		return args[i]
	}
	return nil
}

// visitFrom visits the arguments from the index on as values.
func (e *Effects) visitFrom(args []*parse.Node, from int) {
	for i := from; i < len(args); i++ {
		e.visit(args[i], useValue)
	}
}

// runtimeCall: a call of the CUDA runtime or the C library whose effect the analysis knows;
// false when the call is not one of them, or not in a form it reads.
func (e *Effects) runtimeCall(name string, args []*parse.Node, at parse.Loc) bool {
	switch name {
	case "cudaMalloc", "cudaMallocAsync", "cudaMallocHost", "cudaHostAlloc":
		if r := AddrOf(argAt(args, 0)); r != nil && e.Tracked[r.ID] {
			kind := AllocDevice
			if name == "cudaMallocHost" || name == "cudaHostAlloc" {
				kind = AllocHost
			}
			e.emit(Event{Kind: EvDef, V: r.ID, At: at, Alloc: kind, Size: e.size(argAt(args, 1))})
			e.visitFrom(args, 1)
			return true
		}
	case "cudaMemcpy", "cudaMemcpyAsync":
		if e.cudaCopy(name, args, at) {
			return true
		}
	case "memcpy", "memmove", "memset", "memcmp", "bcmp", "memchr", "fwrite", "fread":
		e.hostBufferCall(name, args, at)
		return true
	case "cudaMemset", "cudaMemsetAsync":
		// GPU work in stream order that writes the buffer and reads none of it: the proofs see
		// a host read of the host side after it as the live value it is
		// (unsafe_memset_read.cu), and the D2H copy after it as what brings its values back.
		if v := e.ptrVar(argAt(args, 0)); v != 0 {
			e.emit(Event{Kind: EvLaunch, V: v, At: at, GpuWrites: true, Fills: true, CopySize: e.size(argAt(args, 2))})
			e.visitFrom(args, 1)
			return true
		}
		if v := e.BasePtr(argAt(args, 0)); v != 0 { // into the buffer (d + off): part of it, written
			e.emit(Event{Kind: EvLaunch, V: v, At: at, GpuWrites: true})
			e.visitFrom(args, 1)
			return true
		}
	case "free", "cudaFree", "cudaFreeHost", "cudaFreeAsync":
		if v := e.ptrVar(argAt(args, 0)); v != 0 {
			e.emit(Event{Kind: EvFree, V: v, At: at})
			e.visitFrom(args, 1)
			return true
		}
	case "__ldg": // a read-only load
		if v := e.BasePtr(argAt(args, 0)); v != 0 {
			e.emit(Event{Kind: EvRead, V: v, At: at})
			e.visitFrom(args, 1)
			return true
		}
	case "cudaDeviceSynchronize", "cudaThreadSynchronize":
		e.emit(Event{Kind: EvSync, At: at})
		return true
	case "cudaLaunchKernel":
		if len(args) >= 4 {
			e.launchThrough(args[3], e.kernelAccess(kernelRef(argAt(args, 0))), at)
			for i, a := range args[1:] {
				if i+1 != 3 {
					e.visit(a, useValue)
				}
			}
			return true
		}
	}
	return false
}

// cudaCopy: cudaMemcpy(Async) with its direction; false when it has too few arguments.
func (e *Effects) cudaCopy(name string, args []*parse.Node, at parse.Loc) bool {
	if len(args) >= 4 {
		ev := Event{Kind: EvCopy, At: at, Dst: e.BasePtr(args[0]), Src: e.BasePtr(args[1]),
			Sync: name == "cudaMemcpy", CopySize: e.size(args[2]), DstExpr: args[0], SrcExpr: args[1]}
		if k := parse.Unwrap(args[3]); k.Kind == "DeclRefExpr" && k.Ref != nil {
			switch k.Ref.Name {
			case "cudaMemcpyHostToDevice":
				ev.Dir = plan.CopyH2D
			case "cudaMemcpyDeviceToHost":
				ev.Dir = plan.CopyD2H
			}
		}
		// A copy through a pointer into a buffer (p + i) is not a full-buffer copy.
		if e.ptrVar(args[0]) == 0 || e.ptrVar(args[1]) == 0 {
			ev.CopySize = ""
		}
		e.emit(ev)
		e.visitFrom(args, 2)
		return true
	}
	return false
}

// hostBufferCall: the C library's reads and writes of a buffer (memcpy, memset, a verify
// step's memcmp, a dump's fwrite, fread's write).
func (e *Effects) hostBufferCall(name string, args []*parse.Node, at parse.Loc) {
	switch name {
	case "memcpy", "memmove", "memset":
		if v := e.BasePtr(argAt(args, 0)); v != 0 {
			e.emit(Event{Kind: EvWrite, V: v, At: at})
		}
		if v := e.BasePtr(argAt(args, 1)); v != 0 && name != "memset" {
			e.emit(Event{Kind: EvRead, V: v, At: at})
		}
		for i := range args {
			if e.BasePtr(args[i]) == 0 {
				e.visit(args[i], useValue)
			}
		}
	default:
		// Host reads of a buffer (a verify step's memcmp, a dump's fwrite), and fread's write.
		for i, a := range args {
			v := e.BasePtr(a)
			switch {
			case v != 0 && i == 0 && name == "fread":
				e.emit(Event{Kind: EvWrite, V: v, At: at})
			case v != 0 && (i == 0 || i == 1 && (name == "memcmp" || name == "bcmp")):
				e.emit(Event{Kind: EvRead, V: v, At: at})
			default:
				e.visit(a, useValue)
			}
		}
	}
}

// opaqueCall: a call whose body is not in the translation unit: a pointer passed to it escapes.
func (e *Effects) opaqueCall(c *parse.Node, name string, args []*parse.Node, at parse.Loc) {
	e.visit(c.Inner[0], useIgnore)
	if gpuLibrary(name) {
		e.emit(Event{Kind: EvLaunch, At: at}) // GPU work the host does not wait for
	}
	for _, a := range args {
		if v := e.BasePtr(a); v != 0 && !quietCalls[name] {
			what := name
			if what == "" {
				what = "a function pointer"
			}
			e.emit(Event{Kind: EvEscape, V: v, At: at, Why: "passed to " + what + ", whose body is not in the translation unit"})
			continue
		}
		if r := AddrOf(a); r != nil && !e.Tracked[r.ID] {
			e.emit(Event{Kind: EvAssign, V: r.ID, At: at})
			continue
		}
		e.visit(a, useValue)
	}
}

// kernelRef is the kernel a launch call's first argument names (k, &k, (void *)k,
// k<float>); nil for a pointer variable or anything else.
func kernelRef(n *parse.Node) *parse.Ref {
	k := parse.Unwrap(n)
	if k != nil && k.Kind == "UnaryOperator" && k.Opcode == "&" && len(k.Inner) == 1 {
		k = parse.Unwrap(k.Inner[0])
	}
	if k == nil || k.Ref == nil || k.Ref.Kind != "FunctionDecl" {
		return nil
	}
	return k.Ref
}

// launchThrough is a launch whose argument array is the expression a: a local array of &v.
func (e *Effects) launchThrough(a *parse.Node, acc kernelAccess, at parse.Loc) {
	u := parse.Unwrap(a)
	if u.Kind == "DeclRefExpr" && u.Ref != nil {
		if slots, ok := e.ArgArrays[u.Ref.ID]; ok {
			e.launch(acc, func(i int) (parse.DeclID, bool) {
				if i < len(slots) && slots[i].Tracked {
					return slots[i].V, true
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
func (e *Effects) launch(acc kernelAccess, argVar func(int) (parse.DeclID, bool), n int, at parse.Loc) {
	any := false
	for i := 0; i < n; i++ {
		v, ok := argVar(i)
		if !ok {
			continue
		}
		k := acc.at(i)
		e.emit(Event{Kind: EvLaunch, V: v, At: at, GpuWrites: !k.readOnly, Why: k.why})
		any = true
	}
	if !any {
		e.emit(Event{Kind: EvLaunch, At: at})
	}
}

// applySummary maps a visible callee's effects on its parameters to the caller's arguments.
func (e *Effects) applySummary(s *summary, c *parse.Node, args []*parse.Node, at parse.Loc) {
	e.visit(c.Inner[0], useIgnore)
	name := s.name
	for i, a := range args {
		if k, ok := s.LaunchArgs[i]; ok {
			var kref *parse.Ref
			if k >= 0 && k < len(args) {
				kref = kernelRef(args[k])
			}
			e.launchThrough(a, e.kernelAccess(kref), at)
			continue
		}
		byRef := i < len(s.params) && strings.Contains(s.params[i].Type, "&")
		v := e.BasePtr(a)
		if v == 0 {
			if r := AddrOf(a); r != nil && !e.Tracked[r.ID] {
				// &x given to a pointer parameter: x may change unless the body only reads
				// through it (its type's const says nothing: it can be cast away).
				if i < len(s.params) && onlyReads(s.effects[i]) {
					continue
				}
				e.emit(Event{Kind: EvAssign, V: r.ID, At: at})
				continue
			}
			if r := rootVar(a); byRef && r != nil && !e.Tracked[r.ID] {
				e.emit(Event{Kind: EvAssign, V: r.ID, At: at}) // bound to a reference: it may change
			}
			e.visit(a, useValue)
			continue
		}
		if byRef {
			e.emit(Event{Kind: EvEscape, V: v, At: at, Why: "passed by reference to " + name + ", which may change the pointer"})
			continue
		}
		for _, ev := range s.effects[i] {
			if ev.fromCopy {
				continue // the copy itself is given below
			}
			ev.V = v
			if ev.Kind == EvFree && ev.Via == "" {
				ev.Via, ev.ViaFreeOnly = name, s.freeOnly
			}
			if ev.Kind == EvEscape {
				ev.Why = "in " + name + ": " + ev.Why
			} else {
				if ev.Origin.Line == 0 {
					ev.Origin, ev.originFn = ev.At, name
				}
				ev.At = at // the call is the step the caller sees
			}
			e.emit(ev)
		}
	}
	for _, hc := range s.copies {
		ev := Event{Kind: EvCopy, At: at, Dir: hc.dir, Sync: hc.sync, Via: name, Origin: hc.at, originFn: name}
		if hc.dst >= 0 && hc.dst < len(args) {
			ev.Dst, ev.DstExpr = e.BasePtr(args[hc.dst]), args[hc.dst]
		}
		if hc.src >= 0 && hc.src < len(args) {
			ev.Src, ev.SrcExpr = e.BasePtr(args[hc.src]), args[hc.src]
		}
		e.emit(ev)
	}
	if s.launches {
		// GPU work on buffers the caller does not see: it may be in flight after the call.
		e.emit(Event{Kind: EvLaunch, At: at, Origin: s.launchAt, originFn: name})
	}
	if s.endsSynced {
		e.emit(Event{Kind: EvSync, At: at})
	}
}

func onlyReads(evs []Event) bool {
	for _, ev := range evs {
		if ev.Kind != EvRead {
			return false
		}
	}
	return true
}

// summarize analyses a function in the translation unit once by its name, where one function
// has it; nil when there is none.
func (e *Effects) Summarize(name string) *summary {
	if e.Overloaded[name] {
		return nil
	}
	return e.summarizeFn(e.Funcs[name])
}

// summarizeFn analyses a function with a body once; nil for none, or when it is being
// analysed (recursion is declined by the caller as an unknown function).
func (e *Effects) summarizeFn(fn *parse.Node) *summary {
	if fn == nil || FuncBody(fn) == nil {
		return nil
	}
	if s, ok := e.summaries[fn]; ok {
		if s.busy {
			return nil
		}
		return s
	}
	s := &summary{name: fn.Name + TemplateArgs(fn), effects: map[int][]Event{}, LaunchArgs: map[int]int{}, SizeParam: -1, busy: true}
	e.summaries[fn] = s
	s.params = Params(fn)
	idx := map[parse.DeclID]int{}
	for i, p := range s.params {
		idx[p.ID] = i
	}
	sub := e.sub(map[parse.DeclID]bool{})
	for id, i := range idx {
		if isPointerType(s.params[i].Type) {
			sub.Tracked[id] = true
		}
	}
	body := FuncBody(fn)
	evs := s.bodyEvents(sub, body, idx)
	s.record(evs, idx)
	s.endsSynced = s.launches && e.endsSynced(body)
	s.freeOnly = e.freeWrapper(fn)
	s.ReturnsHost, s.SizeParam = returnsHostAlloc(fn, idx, e)
	s.busy = false
	return s
}

// bodyEvents are the events of a helper's statements, as seen with its pointer parameters
// tracked; a launch helper's argument array and kernel parameters are noted (LaunchArgs).
func (s *summary) bodyEvents(sub *Effects, body *parse.Node, idx map[parse.DeclID]int) []Event {
	var evs []Event
	body.Walk(func(n *parse.Node) bool {
		switch n.Kind {
		case "CompoundStmt", "IfStmt", "ForStmt", "WhileStmt", "DoStmt":
			return true
		}
		if n.Kind != "" {
			evs = append(evs, sub.StmtEvents(n)...)
			// A launch helper: cudaLaunchKernel(kernel, …, args, …) with both parameters.
			n.Walk(func(c *parse.Node) bool {
				if parse.IsCall(c.Kind) && c.Callee() == "cudaLaunchKernel" && len(c.Args()) >= 4 {
					a, k := parse.Unwrap(c.Args()[3]), parse.Unwrap(c.Args()[0])
					if a.Kind == "DeclRefExpr" && a.Ref != nil {
						if i, ok := idx[a.Ref.ID]; ok {
							s.LaunchArgs[i] = -1
							if k.Kind == "DeclRefExpr" && k.Ref != nil {
								if j, ok := idx[k.Ref.ID]; ok {
									s.LaunchArgs[i] = j
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
	return evs
}

// record sums a helper's events up per parameter (idx: a parameter's index by id): whether it
// launches, the copies the caller sees, and each parameter's reads, writes and the rest.
func (s *summary) record(evs []Event, idx map[parse.DeclID]int) {
	param := func(v parse.DeclID) int {
		if i, ok := idx[v]; ok && v != 0 {
			return i
		}
		return -1
	}
	for _, ev := range evs {
		if ev.Kind == EvLaunch && !s.launches {
			s.launches, s.launchAt = true, ev.At
			if ev.Origin.Line != 0 {
				s.launchAt = ev.Origin
			}
		}
		if ev.Kind == EvCopy && (ev.Dir == plan.CopyH2D || ev.Dir == plan.CopyD2H) && (param(ev.Dst) >= 0 || param(ev.Src) >= 0) {
			// A copy between a buffer the caller gives and any other: the caller sees the
			// copy (made inside this function), not a read and a write.
			s.copies = append(s.copies, helperCopy{dst: param(ev.Dst), src: param(ev.Src), dir: ev.Dir, sync: ev.Sync, at: ev.At})
		}
		for _, v := range []parse.DeclID{ev.V, ev.Dst, ev.Src} {
			i := param(v)
			if i < 0 {
				continue
			}
			if _, la := s.LaunchArgs[i]; la {
				continue
			}
			x := ev
			if ev.Kind == EvCopy {
				// A copy inside a helper is also a read or write of the parameter (what a
				// kernel's reader and a caller that is given the copy itself skip).
				x = Event{Kind: EvRead, At: ev.At, fromCopy: ev.Dir == plan.CopyH2D || ev.Dir == plan.CopyD2H}
				if v == ev.Dst {
					x.Kind = EvWrite
				}
			}
			s.effects[i] = append(s.effects[i], x)
		}
	}
}

// endsSynced reports whether a function's body ends by waiting for all GPU work: a
// synchronize (cudaDeviceSynchronize, or a synchronous cudaMemcpy) that runs whenever the
// function returns — a top-level statement, or one in a macro's do { } while (0) — after the
// last statement that may launch.
func (e *Effects) endsSynced(body *parse.Node) bool {
	synced, launched, early := false, false, false
	var top func(stmts []*parse.Node)
	top = func(stmts []*parse.Node) {
		for _, st := range stmts {
			if st.Kind != "ReturnStmt" {
				st.Walk(func(n *parse.Node) bool {
					// A return before the end: it must not leave GPU work in flight.
					early = early || n.Kind == "ReturnStmt" && launched && !synced
					return true
				})
			}
			if st.Kind == "DoStmt" && len(st.Inner) == 2 && IsNull(st.Inner[1]) && st.Inner[0].Kind == "CompoundStmt" {
				top(st.Inner[0].Inner)
				continue
			}
			launches, syncs := false, false
			st.Walk(func(n *parse.Node) bool {
				if n.Kind == "CUDAKernelCallExpr" {
					launches = true
				} else if parse.IsCall(n.Kind) {
					switch n.Callee() {
					case "cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaMemcpy":
						syncs = true
					case "cudaLaunchKernel", "cudaLaunchCooperativeKernel":
						launches = true
					default:
						if gpuLibrary(n.Callee()) {
							launches = true
						} else if s := e.summarizeFn(e.Body(n.CalleeRef())); s == nil && e.Body(n.CalleeRef()) != nil || s != nil && s.launches && !s.endsSynced {
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
func returnsHostAlloc(fn *parse.Node, idx map[parse.DeclID]int, e *Effects) (bool, int) {
	body := FuncBody(fn)
	var ret parse.DeclID
	ok := true
	body.Walk(func(n *parse.Node) bool {
		if n.Kind == "ReturnStmt" {
			if len(n.Inner) != 1 {
				ok = false
				return false
			}
			r := parse.Unwrap(n.Inner[0])
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
	sub := e.sub(map[parse.DeclID]bool{ret: true})
	sub.Aliases = nil
	var evs []Event
	body.Walk(func(n *parse.Node) bool {
		switch n.Kind {
		case "CompoundStmt", "IfStmt", "ForStmt", "WhileStmt", "DoStmt":
			return true
		}
		evs = append(evs, sub.StmtEvents(n)...)
		return false
	})
	size, host := -2, false
	for _, ev := range evs {
		if ev.V != ret || ev.Kind != EvDef {
			continue
		}
		if ev.Alloc == AllocOther {
			if ev.At != declLoc(body, ret) {
				return false, -1 // an assignment of something other than an allocation
			}
			continue // the declaration's initializer, checked to be null below
		}
		if ev.Alloc != AllocHost {
			return false, -1
		}
		host = true
		p := -1
		for id, i := range idx {
			if ev.Size == "v"+idString(id) {
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
	body.Walk(func(n *parse.Node) bool {
		if n.Kind == "VarDecl" && n.ID == ret && len(n.Inner) > 0 && !IsNull(n.Inner[len(n.Inner)-1]) {
			nullOnly = false
		}
		return true
	})
	if !host || !nullOnly {
		return false, -1
	}
	return true, size
}

func declLoc(body *parse.Node, id parse.DeclID) parse.Loc {
	var l parse.Loc
	body.Walk(func(n *parse.Node) bool {
		if n.Kind == "VarDecl" && n.ID == id {
			l = n.Loc
		}
		return true
	})
	return l
}
