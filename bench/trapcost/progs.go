package main

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// progs are the BPF programs the modes attach, written with the asm package so that the
// benchmark needs no clang. Each comes twice: a uprobe_multi link takes only programs
// loaded for that attach type.
type progs struct {
	empty, work           *ebpf.Program // perf-event uprobes
	emptyMulti, workMulti *ebpf.Program // uprobe_multi links
	pending               *ebpf.Map     // work's per-thread slot
}

// emptyInsns returns 0: what a probe costs with no program work, the trap alone.
func emptyInsns() asm.Instructions {
	return asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}
}

// workInsns does what Echo's entry probe does on a runtime call (bpf/echo.bpf.c
// runtime_enter), without the event: look up the thread's pending slot in a hash keyed by
// thread id, read the clock, store the slot.
func workInsns(pending *ebpf.Map) asm.Instructions {
	return asm.Instructions{
		asm.FnGetCurrentPidTgid.Call(),
		asm.StoreMem(asm.RFP, -4, asm.R0, asm.Word), // key: the thread id, the low half
		asm.LoadMapPtr(asm.R1, pending.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.FnMapLookupElem.Call(),
		asm.FnKtimeGetNs.Call(),
		asm.StoreMem(asm.RFP, -16, asm.R0, asm.DWord), // value: the entry time
		asm.LoadMapPtr(asm.R1, pending.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -16),
		asm.Mov.Imm(asm.R4, 0), // BPF_ANY
		asm.FnMapUpdateElem.Call(),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}
}

// loadProgs loads the perf-event uprobe programs, and the uprobe_multi ones when multi.
func loadProgs(multi bool) (*progs, error) {
	pending, err := ebpf.NewMap(&ebpf.MapSpec{Name: "pending", Type: ebpf.Hash, KeySize: 4, ValueSize: 8, MaxEntries: 1024})
	if err != nil {
		return nil, fmt.Errorf("creating the pending map: %w", err)
	}
	p := &progs{pending: pending}
	load := func(name string, insns asm.Instructions, attach ebpf.AttachType) (*ebpf.Program, error) {
		prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
			Name: name, Type: ebpf.Kprobe, AttachType: attach, License: "GPL", Instructions: insns,
		})
		if err != nil {
			return nil, fmt.Errorf("loading %s: %w", name, err)
		}
		return prog, nil
	}
	if p.empty, err = load("empty", emptyInsns(), ebpf.AttachNone); err != nil {
		return nil, p.closeWith(err)
	}
	if p.work, err = load("work", workInsns(pending), ebpf.AttachNone); err != nil {
		return nil, p.closeWith(err)
	}
	if !multi {
		return p, nil
	}
	if p.emptyMulti, err = load("empty_multi", emptyInsns(), ebpf.AttachTraceUprobeMulti); err != nil {
		return nil, p.closeWith(err)
	}
	if p.workMulti, err = load("work_multi", workInsns(pending), ebpf.AttachTraceUprobeMulti); err != nil {
		return nil, p.closeWith(err)
	}
	return p, nil
}

func (p *progs) closeWith(err error) error {
	p.Close()
	return err
}

func (p *progs) Close() {
	for _, prog := range []*ebpf.Program{p.empty, p.work, p.emptyMulti, p.workMulti} {
		if prog != nil {
			prog.Close()
		}
	}
	p.pending.Close()
}
