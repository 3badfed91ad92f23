package oci

import (
	"encoding/hex"
	"fmt"
	"io"
)

// GenerateLogin returns a fresh in-cluster registry login: InClusterUsername
// and 32 random bytes from rnd (crypto/rand.Reader in production) as hex.
func GenerateLogin(rnd io.Reader) (Login, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(rnd, b); err != nil {
		return Login{}, fmt.Errorf("generate registry password: %w", err)
	}
	return Login{Username: InClusterUsername, Password: hex.EncodeToString(b)}, nil
}

// SecretData returns the login as the data of its Secret (keys username and password).
func (l Login) SecretData() map[string][]byte {
	return map[string][]byte{"username": []byte(l.Username), "password": []byte(l.Password)}
}
