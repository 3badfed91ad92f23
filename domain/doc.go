// Package domain holds the operator's decisions: plans and their digests, step
// planning, transition naming, the rollout state machine with its approval,
// acknowledgement and deadline rules, condition messages, retention and the
// closed set of stall reasons. It imports only the standard library and ports;
// every side effect goes through a port and every "now" comes from ports.Clock.
package domain
