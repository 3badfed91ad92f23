//go:build e2e

package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Each seed's kills: the counts and the ranges they are drawn from. The operator makes about
// 200 counted writes in a walk (chaosCountedWrites) and 31 changing writes to Applications
// (15 installs, 14 upgrades and a Remove step's finalizer, chaosAppWrites); the ranges stay
// below both so that every planned kill happens.
const (
	chaosWriteKills    = 4
	chaosCountedWrites = 160
	chaosAppKills      = 3
	chaosAppWrites     = 30
	// chaosStageJobs is how many resolver stage Jobs a plan decides a boundary for; a walk
	// runs fewer (two resolutions of three stages).
	chaosStageJobs = 8
)

// killPlan is where one seed kills the operator: after its Nth counted write, after its Nth
// changing write to an Application, and at one boundary of each resolver stage Job (the Job
// created, or the Job completed). The same seed gives the same plan.
type killPlan struct {
	seed int64
	// afterWrite are counted write numbers (1-based, ascending) after which the operator is
	// killed: its successful writes but those to Leases, Events and reviews (countedWrite).
	afterWrite []int
	// afterAppWrite are the changing Application write numbers (1-based, ascending) after
	// which the operator is killed (changingAppWrite).
	afterAppWrite []int
	// atCompletion[i] is whether the i-th resolver stage Job (in the order the operator
	// creates them) is killed at when it completes; otherwise when it is created.
	atCompletion []bool
}

// newKillPlan draws seed's plan.
func newKillPlan(seed int64) killPlan {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6b696c6c))
	p := killPlan{seed: seed}
	p.afterWrite = distinct(rng, chaosWriteKills, chaosCountedWrites)
	p.afterAppWrite = distinct(rng, chaosAppKills, chaosAppWrites)
	for range chaosStageJobs {
		p.atCompletion = append(p.atCompletion, rng.IntN(2) == 1)
	}
	return p
}

// distinct returns n distinct numbers of 1..upTo, ascending.
func distinct(rng *rand.Rand, n, upTo int) []int {
	picked := rng.Perm(upTo)[:n]
	for i := range picked {
		picked[i]++
	}
	slices.Sort(picked)
	return picked
}

// String is the plan as the suite prints it.
func (p killPlan) String() string {
	var stages []string
	for _, c := range p.atCompletion[:3] {
		stages = append(stages, map[bool]string{false: "created", true: "completed"}[c])
	}
	return fmt.Sprintf("seed %d: kill after counted writes %v, after Application writes %v, at stage Jobs %s, ...",
		p.seed, p.afterWrite, p.afterAppWrite, strings.Join(stages, "/"))
}

// parseSeeds reads a seed list: comma-separated numbers or ranges, "1-3,7".
func parseSeeds(s string) ([]int64, error) {
	var seeds []int64
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		from, err := strconv.ParseInt(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("seed %q: %w", part, err)
		}
		to := from
		if isRange {
			if to, err = strconv.ParseInt(hi, 10, 64); err != nil || to < from {
				return nil, fmt.Errorf("seed range %q: want FROM-TO with FROM <= TO", part)
			}
		}
		for s := from; s <= to; s++ {
			seeds = append(seeds, s)
		}
	}
	return seeds, nil
}
