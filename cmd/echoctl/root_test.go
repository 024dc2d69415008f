package main

import (
	"bytes"
	"strings"
	"testing"
)

func execute(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestVersion(t *testing.T) {
	version = "1.2.3-test"
	out, err := execute(t, "--version")
	if err != nil || strings.TrimSpace(out) != "echoctl version 1.2.3-test" {
		t.Errorf("--version: %q, %v", out, err)
	}
}

func TestUnknownFlag(t *testing.T) {
	if _, err := execute(t, "--no-such-flag"); err == nil || !strings.Contains(err.Error(), "no-such-flag") {
		t.Errorf("unknown flag: err %v, want one naming the flag", err)
	}
}

func TestLogLevel(t *testing.T) {
	for v, want := range map[int]string{0: "WARN", 1: "INFO", 2: "DEBUG", 5: "DEBUG"} {
		if got := logLevel(v).String(); got != want {
			t.Errorf("logLevel(%d) = %s, want %s", v, got, want)
		}
	}
}
