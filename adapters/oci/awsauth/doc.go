// Package awsauth signs the few AWS calls the registry adapter makes by hand (SigV4): ECR's
// GetAuthorizationToken (ECRAPI, an oci.TokenSource) with the credentials of the operator's
// EKS Pod Identity or IRSA identity, or of the pull-only role it assumes with STS
// AssumeRole for Argo CD (AssumedRole). Errors wrap the ports' credential sentinels.
package awsauth
