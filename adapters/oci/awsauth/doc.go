// Package awsauth is the AWS side of the registry adapter's aws provider, over
// aws-sdk-go-v2: the operator's identity from the SDK's default credential
// chain (EKS Pod Identity, IRSA web identity, ...; LoadIdentity), the pull-only
// role it assumes with STS AssumeRole for Argo CD (Identity.AssumeRole), ECR's
// GetAuthorizationToken (ECRAPI, an oci.TokenSource) and the ECR registry
// hosts it accepts (ParseRegistry). AWS API error codes map to the ports'
// credential sentinels (errors.go); AWS types stay inside this package.
package awsauth
