package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/embedshim"
)

// versionInfo is what `echoctl version` prints: where this binary came from.
type versionInfo struct {
	Schema   string `json:"schema"`           // schemaVersion
	Version  string `json:"version"`          // -ldflags "-X main.version=…" (make: git describe)
	Module   string `json:"module"`           // module path
	ModVer   string `json:"module_version"`   // "(devel)" for a build from a work tree
	Commit   string `json:"commit,omitempty"` // vcs.revision, where go stamped it
	Time     string `json:"commit_time,omitempty"`
	Modified bool   `json:"modified,omitempty"` // built from a work tree with changes
	Go       string `json:"go"`
	Platform string `json:"platform"`
	Shim     string `json:"shim_sha256,omitempty"` // the preload library it carries, if any
}

func newVersionCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version [--json]",
		Short: "Say which echoctl this is: version, commit, Go, platform, the preload library it carries",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return printVersion(cmd.OutOrStdout(), readVersion(), g.json)
		},
	}
}

func readVersion() versionInfo {
	v := versionInfo{Schema: schemaVersion, Version: version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Module, v.ModVer = bi.Main.Path, bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	_, v.Shim = embedshim.Shim()
	return v
}

func printVersion(w io.Writer, v versionInfo, asJSON bool) error {
	if asJSON {
		return printJSON(w, v)
	}
	fmt.Fprintf(w, "echoctl %s (%s %s)\n", v.Version, v.Module, v.ModVer)
	if v.Commit != "" {
		dirty := ""
		if v.Modified {
			dirty = ", with uncommitted changes"
		}
		fmt.Fprintf(w, "commit   %s (%s%s)\n", v.Commit, v.Time, dirty)
	}
	fmt.Fprintf(w, "go       %s %s\n", v.Go, v.Platform)
	shim := "none (built without make: set ECHO_SHIM, or keep lib/libechoshim.so beside bin/)"
	if v.Shim != "" {
		shim = "libechoshim.so, sha256 " + v.Shim
	}
	fmt.Fprintf(w, "shim     %s\n", shim)
	return nil
}
