package chromafs_test

import (
	"context"
	"fmt"
	"log"

	"github.com/chromafs/chromafs"
)

func ExampleFS_Candidates() {
	ctx := context.Background()
	fsys, err := chromafs.New(ctx, exampleStore())
	if err != nil {
		log.Fatal(err)
	}
	names := []string{"index.md", "guides/quickstart.md", "guides/auth/oauth.mdx", "internal/oncall.md"}
	// "access_token" straddles two 8-byte chunks of oauth.mdx; the hidden
	// internal/oncall.md is never a candidate.
	got, err := fsys.Candidates(ctx, names, []string{"ACCESS_TOKEN", "rotation"}, true)
	fmt.Println(got, err)
	// Output: [guides/auth/oauth.mdx] <nil>
}
