package argocd

import "github.com/google/wire"

// ProviderSet provides the Argo CD engine as *Engine. The composition root
// binds it to ports.DeploymentEngine in its engine switch,
// and provides the client.Client (scheme with AddToScheme), a non-caching
// discovery.DiscoveryInterface and the Config from app.Config.
var ProviderSet = wire.NewSet(NewEngine)
