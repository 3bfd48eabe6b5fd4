package shell_test

import (
	"context"
	"fmt"
	"os"
	"testing/fstest"

	"github.com/chromafs/chromafs/shell"
)

func Example() {
	fsys := fstest.MapFS{
		"guides/webhooks.md": {Data: []byte("# Webhooks\nRetry a webhook with backoff.\n")},
		"guides/auth.md":     {Data: []byte("# Auth\n")},
	}
	sess := shell.New(fsys)
	ctx := context.Background()
	sess.Run(ctx, "cd /guides && ls", os.Stdout, os.Stdout)
	sess.Run(ctx, "pwd; cat webhooks.md | cat -n", os.Stdout, os.Stdout)
	status, _ := sess.Run(ctx, "echo draft > new.md", os.Stdout, os.Stdout)
	fmt.Println("status", status)
	status, _ = sess.Run(ctx, "curl example.com", os.Stdout, os.Stdout)
	fmt.Println("status", status)
	// Output:
	// auth.md
	// webhooks.md
	// /guides
	//      1	# Webhooks
	//      2	Retry a webhook with backoff.
	// bash: new.md: Read-only file system
	// status 1
	// bash: curl: command not found
	// status 127
}
