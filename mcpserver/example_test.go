package mcpserver_test

import (
	"context"
	"fmt"
	"io/fs"
	"log"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/mcpserver"
)

// A server over any fs.FS (a chromafs.FS in practice), and a client that
// calls two of its tools over in-memory transports. A real server runs
// srv.Run(ctx, &mcp.StdioTransport{}) or sits behind
// mcp.NewStreamableHTTPHandler.
func Example() {
	ctx := context.Background()
	docs := fstest.MapFS{
		"guides/auth.md": {Data: []byte("# Auth\nUse a bearer token.\n")},
		"index.md":       {Data: []byte("# Docs\n")},
	}
	srv := mcpserver.New(mcpserver.Config{
		FS: func(context.Context) (fs.FS, error) { return docs, nil },
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for _, call := range []*mcp.CallToolParams{
		{Name: "bash", Arguments: map[string]any{"command": "cd /guides && grep -rn token ."}},
		{Name: "read", Arguments: map[string]any{"path": "auth.md"}}, // relative to bash's cd
	} {
		res, err := cs.CallTool(ctx, call)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// ./auth.md:2:Use a bearer token.
	//      1	# Auth
	//      2	Use a bearer token.
}
