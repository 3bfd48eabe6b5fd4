package identity_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/chromafs/chromafs/internal/identity"
)

// A site whose identity provider publishes its keys in a file (an https
// URL works the same way): the token's groups come out of a delimited
// string, and a token issued for another site is refused with 401 and the
// challenge an MCP client reads.
func Example() {
	// The identity provider's side: a key, its public half in a key set,
	// and two tokens it issued.
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	dir, _ := os.MkdirTemp("", "identity")
	defer os.RemoveAll(dir)
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: priv.Public(), KeyID: "k1", Algorithm: "EdDSA", Use: "sig"}}})
	os.WriteFile(filepath.Join(dir, "jwks.json"), set, 0o644)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	issue := func(aud string) string {
		s, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: jose.JSONWebKey{Key: priv, KeyID: "k1"}}, nil)
		payload, _ := json.Marshal(map[string]any{
			"iss": "https://login.example.com", "aud": aud, "sub": "alice",
			"exp": now.Add(time.Hour).Unix(), "roles": "docs-team support",
		})
		obj, _ := s.Sign(payload)
		tok, _ := obj.CompactSerialize()
		return tok
	}

	// The site's side.
	v, err := identity.New(identity.Config{
		JWKS:            filepath.Join(dir, "jwks.json"),
		Issuer:          "https://login.example.com",
		Audience:        "https://docs.example.com/acme",
		GroupsClaim:     "roles",
		GroupsDelimiter: " ",
		Now:             func() time.Time { return now },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, aud := range []string{"https://docs.example.com/acme", "https://docs.example.com/other"} {
		token, err := v.BearerToken("Bearer " + issue(aud))
		if err == nil {
			var sub string
			var groups []string
			if sub, groups, err = v.Verify(context.Background(), token); err == nil {
				fmt.Println(sub, groups)
				continue
			}
		}
		fmt.Println(identity.Status(err), err)
		fmt.Println(identity.Challenge(err, "resource_metadata", "https://docs.example.com/.well-known/oauth-protected-resource/acme"))
	}
	// Output:
	// alice [docs-team support]
	// 401 identity: wrong audience: aud does not contain "https://docs.example.com/acme" (the token is for another audience)
	// Bearer resource_metadata="https://docs.example.com/.well-known/oauth-protected-resource/acme", error="invalid_token", error_description="wrong audience: aud does not contain 'https://docs.example.com/acme' (the token is for another audience)"
}
