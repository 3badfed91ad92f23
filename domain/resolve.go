package domain

import "fmt"

// Toleration is one placement toleration as aicr bundle receives it.
type Toleration struct {
	Key      string
	Operator string
	Value    string
	Effect   string
}

// CheckTolerations refuses a placement toleration AICR cannot render
// (InvalidPlacement, RES-3): a key that is not a valid label key, a value with
// operator Exists, an empty key with operator Equal, or a value that is not a
// valid label value.
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
			}
		}
	}
	return nil
}
