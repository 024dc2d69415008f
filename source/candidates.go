package source

// A Pair is a candidate: a host buffer and a device buffer, each held in a local pointer
// variable of one function, linked by at least one copy between the two variables.
type Pair struct {
	Function     string
	Host, Device string // the variables' names
	HostID       DeclID
	DeviceID     DeclID
	Copies       []CopySite
}

// CopySite is one linking copy of a pair.
type CopySite struct {
	At   Loc
	Dir  Direction
	Sync bool // cudaMemcpy: the host waits for it
	Full bool // its size is provably the allocation's
	// KeepWait: S2 found a launch in flight here, so the rewrite turns the copy into a
	// synchronize rather than removing it.
	KeepWait bool
}

// Site is where one side of a pair is allocated or freed: the rewrite edits exactly these.
type Site struct {
	At   Loc
	Host bool // the host side's (else the device side's)
}

// candidates finds the pairs of one function from its events: a copy between a variable that
// some path gives a host allocation and one that some path gives a device allocation.
func candidates(fn *Node, evs []event, names map[DeclID]string) []Pair {
	host, dev := map[DeclID]bool{}, map[DeclID]bool{}
	for _, ev := range evs {
		if ev.kind == evDef {
			switch ev.alloc {
			case allocHost:
				host[ev.v] = true
			case allocDevice:
				dev[ev.v] = true
			}
		}
	}
	var out []Pair
	seen := map[[2]DeclID]int{}
	for _, ev := range evs {
		if ev.kind != evCopy {
			continue
		}
		var h, d DeclID
		switch {
		case ev.dir == HostToDevice && host[ev.src] && dev[ev.dst]:
			h, d = ev.src, ev.dst
		case ev.dir == DeviceToHost && host[ev.dst] && dev[ev.src]:
			h, d = ev.dst, ev.src
		default:
			continue
		}
		k := [2]DeclID{h, d}
		if _, ok := seen[k]; !ok {
			seen[k] = len(out)
			out = append(out, Pair{Function: fn.Name + templateArgs(fn), Host: names[h], Device: names[d], HostID: h, DeviceID: d})
		}
	}
	return out
}
