// Package operator runs the real aicr-operator binary against a local control plane: the
// composition root as a user runs it, measured from outside the process.
package operator
