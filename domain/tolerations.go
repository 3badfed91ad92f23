package domain

import "fmt"

// Toleration is one placement toleration as aicr bundle receives it.
type Toleration struct {
	Key      string
	Operator string
	Value    string
	Effect   string
	// Bounded says the toleration sets tolerationSeconds, which AICR's toleration flags cannot
	// carry.
	Bounded bool
}

// CheckTolerations refuses a placement toleration AICR cannot render
// (InvalidPlacement, RES-3): a key that is not a valid label key, a value with
// operator Exists, an empty key with operator Equal, a value that is not a
// valid label value, an empty key with an effect (AICR's flags say "every taint" only as
// `*`, with no effect), or tolerationSeconds (AICR's flags have no field for it).
func CheckTolerations(groups map[string][]Toleration) *Stall {
	for _, group := range sortedKeys(groups) {
		for i, t := range groups[group] {
			where := fmt.Sprintf("placement.%s.tolerations[%d]", group, i)
			switch {
			case t.Key == "" && t.Operator != "Exists":
				return stallf(StallInvalidPlacement, where+": an empty key needs operator Exists")
			case t.Key != "" && validSelector(NodeSelector{t.Key: ""}) != "":
				return stallf(StallInvalidPlacement, fmt.Sprintf("%s: invalid key %q", where, t.Key))
			case t.Operator == "Exists" && t.Value != "":
				return stallf(StallInvalidPlacement, where+": operator Exists takes no value")
			case !labelValue.MatchString(t.Value):
				return stallf(StallInvalidPlacement, fmt.Sprintf("%s: invalid value %q", where, t.Value))
			case t.Key == "" && t.Effect != "":
				return stallf(StallInvalidPlacement, where+": AICR tolerates every key only for every effect "+
					"(--*-node-toleration '*'): name the key or leave the effect empty")
			case t.Bounded:
				return stallf(StallInvalidPlacement, where+": AICR's toleration flags cannot carry tolerationSeconds: remove it")
			}
		}
	}
	return nil
}
