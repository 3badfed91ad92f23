package domain

import (
	"sort"

	"github.com/NVIDIA/aicr/ports"
)

// InventoryDigest digests the live engine inventory (startingInventoryDigest,
// RO-1): for every engine object, its namespace, ID, recorded runtime UID and
// plan digest, sorted. Health and sync state are not part of it.
func InventoryDigest(live []ports.ReleaseStatus) (string, error) {
	rows := make([]string, 0, len(live))
	for _, s := range live {
		rows = append(rows, s.Ref.Namespace+"\x00"+s.Ref.ID+"\x00"+s.Owner.RuntimeUID+"\x00"+s.Owner.PlanDigest)
	}
	sort.Strings(rows)
	return Digest(rows)
}
