package main

import "fmt"

// exitStatus carries a program's exit status out through main, which exits with it:
// `echoctl trace -- CMD` and `echoctl run PLAN -- CMD` end the way CMD did (128+N when
// signal N killed it), so scripts can check it.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("the command exited with status %d", int(e)) }

// statusError is nil for status 0, else the exitStatus that makes main exit with it.
func statusError(status int) error {
	if status == 0 {
		return nil
	}
	return exitStatus(status)
}
