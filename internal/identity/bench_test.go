package identity_test

import (
	"context"
	"testing"
)

// BenchmarkVerify is Verify of a valid token per algorithm, the key set
// cached: parsing, key choice, signature, claims, groups.
func BenchmarkVerify(b *testing.B) {
	ed, ec, rs, _ := keys(b)
	srv := newJWKSServer(b, jwksOf(b, ed, ec, rs))
	clk := newClock()
	v := mustNew(b, srv.config(clk))
	for _, s := range []signer{ed, ec, rs} {
		tok := sign(b, s, claims(clk.Now()), nil)
		if _, _, err := v.Verify(context.Background(), tok); err != nil {
			b.Fatal(err)
		}
		b.Run(string(s.alg), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := v.Verify(context.Background(), tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
