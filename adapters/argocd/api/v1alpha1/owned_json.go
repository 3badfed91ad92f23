package v1alpha1

// The objects the engine owns whole keep the members they do not model (see
// Unmodeled). Each converts to a type without methods to use the default
// encoding for its modeled fields.

// UnmarshalJSON decodes the source, keeping its unmodeled members.
func (in *ApplicationSource) UnmarshalJSON(data []byte) error {
	type modeled ApplicationSource
	m, rest, err := decodeOwned[modeled](data)
	*in, in.Unmodeled = ApplicationSource(m), rest
	return err
}

// MarshalJSON encodes the source with its unmodeled members.
func (in ApplicationSource) MarshalJSON() ([]byte, error) {
	type modeled ApplicationSource
	return encodeOwned(modeled(in), in.Unmodeled)
}

// UnmarshalJSON decodes the Helm options, keeping their unmodeled members.
func (in *ApplicationSourceHelm) UnmarshalJSON(data []byte) error {
	type modeled ApplicationSourceHelm
	m, rest, err := decodeOwned[modeled](data)
	*in, in.Unmodeled = ApplicationSourceHelm(m), rest
	return err
}

// MarshalJSON encodes the Helm options with their unmodeled members.
func (in ApplicationSourceHelm) MarshalJSON() ([]byte, error) {
	type modeled ApplicationSourceHelm
	return encodeOwned(modeled(in), in.Unmodeled)
}

// UnmarshalJSON decodes the destination, keeping its unmodeled members.
func (in *ApplicationDestination) UnmarshalJSON(data []byte) error {
	type modeled ApplicationDestination
	m, rest, err := decodeOwned[modeled](data)
	*in, in.Unmodeled = ApplicationDestination(m), rest
	return err
}

// MarshalJSON encodes the destination with its unmodeled members.
func (in ApplicationDestination) MarshalJSON() ([]byte, error) {
	type modeled ApplicationDestination
	return encodeOwned(modeled(in), in.Unmodeled)
}

// UnmarshalJSON decodes the sync policy, keeping its unmodeled members.
func (in *SyncPolicy) UnmarshalJSON(data []byte) error {
	type modeled SyncPolicy
	m, rest, err := decodeOwned[modeled](data)
	*in, in.Unmodeled = SyncPolicy(m), rest
	return err
}

// MarshalJSON encodes the sync policy with its unmodeled members.
func (in SyncPolicy) MarshalJSON() ([]byte, error) {
	type modeled SyncPolicy
	return encodeOwned(modeled(in), in.Unmodeled)
}

// UnmarshalJSON decodes the automation, keeping its unmodeled members.
func (in *SyncPolicyAutomated) UnmarshalJSON(data []byte) error {
	type modeled SyncPolicyAutomated
	m, rest, err := decodeOwned[modeled](data)
	*in, in.Unmodeled = SyncPolicyAutomated(m), rest
	return err
}

// MarshalJSON encodes the automation with its unmodeled members.
func (in SyncPolicyAutomated) MarshalJSON() ([]byte, error) {
	type modeled SyncPolicyAutomated
	return encodeOwned(modeled(in), in.Unmodeled)
}
