// Package sealtest gives tests that run the operator's adapters without its key Secret a
// ports.Sealer over a fixed key, made at an unknown time (KeyMadeAt is zero). Suites that model
// the operator's identity load the real key (sealer.Load) instead.
package sealtest

import (
	"bytes"
	"time"

	"github.com/NVIDIA/aicr/adapters/sealer"
)

// New returns a Sealer over a fixed test key.
func New() *sealer.Sealer {
	s, err := sealer.New(bytes.Repeat([]byte{0x5e}, sealer.KeySize), time.Time{})
	if err != nil { // the key has KeySize bytes
		panic(err)
	}
	return s
}
