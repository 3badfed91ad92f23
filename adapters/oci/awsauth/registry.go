package awsauth

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrNotECR reports a registry host that is not an ECR private registry.
var ErrNotECR = errors.New("not an ECR private registry host")

// ecrHost is the host pattern of amazon-ecr-credential-helper (ecr-login/api/client.go):
// <account>.dkr.ecr[-fips].<region>.<partition domain>, the dual-stack dkr-ecr form included,
// for the commercial, China, GovCloud (amazonaws.com), European Sovereign Cloud and ISO partitions.
var ecrHost = regexp.MustCompile(`^(\d{12})\.dkr[\.\-]ecr(\-fips)?\.([a-zA-Z0-9][a-zA-Z0-9-_]*)\.` +
	`(amazonaws\.(?:com(?:\.cn)?|eu)|on\.(?:aws|amazonwebservices\.com\.cn)|sc2s\.sgov\.gov|c2s\.ic\.gov|` +
	`cloud\.adc-e\.uk|csp\.hci\.ic\.gov)$`)

// Registry is an ECR private registry, read from its host.
type Registry struct {
	// Host is the registry host, e.g. 123456789012.dkr.ecr.eu-west-1.amazonaws.com.
	Host string
	// Account is the AWS account that owns the registry.
	Account string
	// Region is the AWS region of the registry and of its ECR API.
	Region string
	// FIPS is true for a dkr.ecr-fips host: the ECR API is then called at its FIPS endpoint.
	FIPS bool
}

// ParseRegistry reads the ECR registry of a repository reference (oci://<host>/<path> or
// <host>/<path>). A host that is not an ECR private registry wraps ErrNotECR.
func ParseRegistry(repository string) (Registry, error) {
	host, _, _ := strings.Cut(strings.TrimPrefix(repository, "oci://"), "/")
	m := ecrHost.FindStringSubmatch(host)
	if m == nil {
		return Registry{}, fmt.Errorf("parse registry host %q: %w", host, ErrNotECR)
	}
	return Registry{Host: host, Account: m[1], FIPS: m[2] != "", Region: m[3]}, nil
}
