// Package cli is the driving adapter behind the kubectl-aicr plugin: a cobra
// root command with one constructor per subcommand. `plan` works offline on
// bundle directories; commands that talk to the API server (describe, approve,
// revoke, acknowledge, reproduce) are added to the same root by listing their
// constructor in subcommands.
package cli
