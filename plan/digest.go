package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
)

// PairsDigest is the digest calibration records of the pairs it enabled: SHA-256 of their
// lines in the compact plan, which the shim hashes again (shim/sha256.c) before it merges
// anything. It guards against edits, not attackers: whoever can write the plan can also
// write the digest, and the environment that preloads the shim.
func PairsDigest(pairs []Pair, strategy Strategy) (string, error) {
	lines, err := pairLines(pairs, strategy)
	if err != nil {
		return "", err
	}
	return linesDigest(lines), nil
}

// linesDigest is the digest of pair lines as the shim hashes them.
func linesDigest(lines string) string {
	sum := sha256.Sum256([]byte(lines))
	return hex.EncodeToString(sum[:])
}

const notMeasured = "the plan's enabled pairs are not the ones calibration measured"

// CheckDigest fails unless pairs are exactly the pairs calibration enabled: a plan whose
// pairs were edited after calibration, or that says pairs are enabled without calibration's
// digest (an edit, or a plan calibrated before echoctl recorded one), would merge what no
// validation or calibration saw.
func (p *Plan) CheckDigest(pairs []Pair) error {
	if p.Context.PairsDigest == "" {
		return errors.New(notMeasured + ": it carries no calibration digest (edited, or calibrated by an older echoctl)")
	}
	got, err := PairsDigest(pairs, p.Context.Strategy)
	if err != nil {
		return err
	}
	if got != p.Context.PairsDigest {
		return errors.New(notMeasured + ": they changed since (was the plan edited?)")
	}
	return nil
}
