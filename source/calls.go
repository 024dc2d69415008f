package source

// summary is what a function in the translation unit does with each pointer parameter, seen
// from its callers: the events its body has on that parameter (flow-insensitively: a call is
// one step), and whether it returns a host allocation (the corpus's host_alloc).
type summary struct {
	params      []*Node         // the ParmVarDecls
	effects     map[int][]event // by parameter index
	launchArgs  map[int]int     // parameter index of an argument array → index of the kernel parameter
	returnsHost bool
	sizeParam   int
	busy        bool
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
		e.launch(e.kernelParams(c.CalleeRef()), e.readOnlyParams(c.CalleeRef()), func(i int) (DeclID, bool) {
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
				sync: name == "cudaMemcpy", copySize: e.size(args[2]), dir: OtherCopy}
			if k := Unwrap(args[3]); k.Kind == "DeclRefExpr" && k.Ref != nil {
				switch k.Ref.Name {
				case "cudaMemcpyHostToDevice":
					ev.dir = HostToDevice
				case "cudaMemcpyDeviceToHost":
					ev.dir = DeviceToHost
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
			kernel := Unwrap(arg(0))
			var kref *Ref
			if kernel.Kind == "UnaryOperator" && kernel.Opcode == "&" && len(kernel.Inner) == 1 {
				kernel = Unwrap(kernel.Inner[0])
			}
			kref = kernel.Ref
			e.launchThrough(args[3], e.kernelParams(kref), e.readOnlyParams(kref), at)
			rest(1)
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
	if s := e.summarize(name); s != nil {
		e.applySummary(s, c, args, at)
		return
	}
	e.visit(c.Inner[0], useIgnore)
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

// launchThrough is a launch whose argument array is the expression a: a local array of &v.
func (e *effects) launchThrough(a *Node, params []*Node, readOnly []bool, at Loc) {
	u := Unwrap(a)
	if u.Kind == "DeclRefExpr" && u.Ref != nil {
		if slots, ok := e.argArrays[u.Ref.ID]; ok {
			e.launch(params, readOnly, func(i int) (DeclID, bool) {
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

// launch emits one launch event per followed pointer argument: a kernel parameter that is a
// pointer to const, or that the kernel's body only reads through (readOnly, kernels.go), is
// only read; any other, or an unknown kernel, may be written.
func (e *effects) launch(params []*Node, readOnly []bool, argVar func(int) (DeclID, bool), n int, at Loc) {
	any := false
	for i := 0; i < n; i++ {
		v, ok := argVar(i)
		if !ok {
			continue
		}
		writes := true
		if params != nil && i < len(params) && constPointee(params[i].Type) || i < len(readOnly) && readOnly[i] {
			writes = false
		}
		e.emit(event{kind: evLaunch, v: v, at: at, gpuWrites: writes})
		any = true
	}
	if !any {
		e.emit(event{kind: evLaunch, at: at})
	}
}

// constPointee reports whether a parameter type is a pointer to const ("const float *").
func constPointee(t string) bool {
	return isPointerType(t) && len(t) > 6 && t[:6] == "const "
}

// kernelParams are a kernel's parameters when its declaration is in the translation unit.
func (e *effects) kernelParams(r *Ref) []*Node {
	if r == nil || e.overloaded[r.Name] {
		return nil
	}
	fn := e.funcs[r.Name]
	if fn == nil {
		return nil
	}
	var ps []*Node
	for _, p := range fn.Inner {
		if p.Kind == "ParmVarDecl" {
			ps = append(ps, p)
		}
	}
	return ps
}

// applySummary maps a visible callee's effects on its parameters to the caller's arguments.
func (e *effects) applySummary(s *summary, c *Node, args []*Node, at Loc) {
	e.visit(c.Inner[0], useIgnore)
	for i, a := range args {
		if k, ok := s.launchArgs[i]; ok {
			var params []*Node
			var readOnly []bool
			if k >= 0 && k < len(args) {
				kernel := Unwrap(args[k])
				params, readOnly = e.kernelParams(kernel.Ref), e.readOnlyParams(kernel.Ref)
			}
			e.launchThrough(a, params, readOnly, at)
			continue
		}
		v := e.basePtr(a)
		if v == 0 {
			if r := addrOf(a); r != nil && !e.tracked[r.ID] {
				if i < len(s.params) && constPointee(s.params[i].Type) {
					continue
				}
				e.emit(event{kind: evAssign, v: r.ID, at: at})
				continue
			}
			e.visit(a, useValue)
			continue
		}
		for _, ev := range s.effects[i] {
			ev.v = v
			if ev.kind == evEscape {
				ev.why = "in " + c.Callee() + ": " + ev.why
			} else {
				ev.at = at // the call is the step the caller sees
			}
			e.emit(ev)
		}
	}
}

// summarize analyses a function in the translation unit once; nil when there is none, or
// when it is being analysed (recursion is declined by the caller as an unknown function).
func (e *effects) summarize(name string) *summary {
	fn := e.funcs[name]
	if fn == nil {
		return nil
	}
	if s, ok := e.summaries[name]; ok {
		if s.busy {
			return nil
		}
		return s
	}
	s := &summary{effects: map[int][]event{}, launchArgs: map[int]int{}, sizeParam: -1, busy: true}
	e.summaries[name] = s
	idx := map[DeclID]int{}
	for _, p := range fn.Inner {
		if p.Kind == "ParmVarDecl" {
			idx[p.ID] = len(s.params)
			s.params = append(s.params, p)
		}
	}
	sub := &effects{funcs: e.funcs, overloaded: e.overloaded, summaries: e.summaries, localTypes: e.localTypes, tracked: map[DeclID]bool{},
		argArrays: map[DeclID][]argSlot{}, aliases: map[DeclID]DeclID{}}
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
	for _, ev := range evs {
		for _, v := range []DeclID{ev.v, ev.dst, ev.src} {
			if i, ok := idx[v]; ok && v != 0 {
				if _, la := s.launchArgs[i]; la {
					continue
				}
				x := ev
				if ev.kind == evCopy {
					// A copy inside a helper is seen as a read or write of the parameter.
					x = event{kind: evRead, at: ev.at}
					if v == ev.dst {
						x.kind = evWrite
					}
				}
				s.effects[i] = append(s.effects[i], x)
			}
		}
	}
	s.returnsHost, s.sizeParam = returnsHostAlloc(fn, idx, e)
	s.busy = false
	return s
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
	sub := &effects{funcs: e.funcs, overloaded: e.overloaded, summaries: e.summaries, localTypes: e.localTypes, tracked: map[DeclID]bool{ret: true}, argArrays: map[DeclID][]argSlot{}}
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
