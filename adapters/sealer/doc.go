// Package sealer is the driven adapter of ports.Sealer: HMAC-SHA256 with a 32-byte key held in
// one immutable Secret of the operator namespace, which the operator creates on start when it is
// absent and which the chart lets only the operator's ServiceAccount read (by name). Whoever
// administers the operator namespace can read or replace that Secret and is therefore at the
// operator's own trust level; every other identity, even one that may write the objects the
// operator seals (while an admission binding is missing), cannot make a seal that verifies.
//
// Deleting the Secret rotates the key: the next start makes a new one, and every seal made with
// the old key stops verifying, so the state it sealed is redone (docs/operations.md).
package sealer
