package oci

import (
	"github.com/google/wire"

	"github.com/nvidia/aicr-operator/ports"
)

// ProviderSet provides the OCI Registry bound to ports.Registry. The
// composition root provides Options (registry from the chart's
// registry.repository, the credential provider of registry.provider).
var ProviderSet = wire.NewSet(New, wire.Bind(new(ports.Registry), new(*Registry)))
