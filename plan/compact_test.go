package plan

import (
	"fmt"
	"strings"
	"testing"
)

// A compact plan larger than the shim reads is refused where it is made, saying so, rather
// than handed over for the shim to name only the temporary file it could not read.
func TestCompactRefusesWhatTheShimCannotRead(t *testing.T) {
	p := examplePlan()
	one, err := Compact(p, p.Pairs[:1], StrategyMapped, ModeDeploy)
	if err != nil {
		t.Fatal(err)
	}
	two, err := Compact(p, p.Pairs[:2], StrategyMapped, ModeDeploy)
	if err != nil {
		t.Fatal(err)
	}
	perPair := len(two) - len(one)
	var many []Pair
	for i := range MaxCompactBytes/perPair + 1 {
		pair := p.Pairs[0]
		pair.ID = fmt.Sprintf("p%d", i)
		many = append(many, pair)
	}
	_, err = Compact(p, many, StrategyMapped, ModeDeploy)
	if err == nil || !strings.Contains(err.Error(), "more than the 1.0 MiB the shim reads: deploy fewer pairs") {
		t.Errorf("a compact plan of %d pairs: error %v, want it refused as larger than the shim reads", len(many), err)
	}
}
