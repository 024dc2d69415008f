package facts

import "github.com/echo-uma/echo/source/parse"

// CalledFunctions are the functions with a body that some call in the translation unit names.
func (e *Effects) CalledFunctions() map[*parse.Node]bool {
	if e.Called != nil {
		return e.Called
	}
	e.Called = map[*parse.Node]bool{}
	for _, fn := range e.Bodies {
		fn.Walk(func(n *parse.Node) bool {
			if parse.IsCall(n.Kind) {
				if b := e.Body(n.CalleeRef()); b != nil {
					e.Called[b] = true
				}
			}
			return true
		})
	}
	return e.Called
}
