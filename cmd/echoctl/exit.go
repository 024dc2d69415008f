package main

import "fmt"

// exitStatus carries a traced command's exit status out through main, which exits with it:
// `echoctl trace -- CMD` ends the way CMD did, so scripts can check it.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("the command exited with status %d", int(e)) }
