// Package aicrcontract holds the operator's readers and its AICR simulator (test/jobexec) to
// AICR v1's own artifacts: every case reads the reference directory (test/testdata/aicr/
// v1-reference, or the directory AICR_REFERENCE_DIR names), so an artifact added there is
// checked without a code change. Each case names the statement of the reference's FACTS.md
// it holds, and a guard test fails when a statement has neither a case nor a recorded reason.
package aicrcontract
