// Command chromafs-embed runs an embedding function of package
// chromastore (with chroma-go's, which package chromaembed registers) for
// `chromafs ingest --embedding NAME`, so that the chromafs command does
// not link chroma-go's embedding stack: its package initialisation (ONNX
// and tokenizer bindings, purego, a struct validator, MIME sniffing)
// would cost every chromafs process, ls and grep included, milliseconds
// before main.
//
// Usage:
//
//	chromafs-embed NAME
//
// It speaks JSON over stdin and stdout, one value per message. It first
// writes {"name": ..., "config": {...}} (the function's Name and
// GetConfig), then answers each {"texts": [...]} it reads with
// {"vectors": [[...], ...]} or {"error": "..."}, until stdin ends. An
// unknown NAME is reported as {"error": "..."} before anything else, and
// the exit status is 2.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/chromafs/chromafs/chromastore"
	_ "github.com/chromafs/chromafs/chromastore/chromaembed"
)

// hello is the first message: the function's name and configuration.
type hello struct {
	Name   string         `json:"name,omitempty"`
	Config map[string]any `json:"config,omitempty"`
	Error  string         `json:"error,omitempty"`
}

type request struct {
	Texts []string `json:"texts"`
}

type answer struct {
	Vectors [][]float32 `json:"vectors,omitempty"`
	Error   string      `json:"error,omitempty"`
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	send := func(v any) bool {
		if err := enc.Encode(v); err != nil {
			fmt.Fprintf(stderr, "chromafs-embed: %v\n", err)
			return false
		}
		if err := w.Flush(); err != nil {
			fmt.Fprintf(stderr, "chromafs-embed: %v\n", err)
			return false
		}
		return true
	}
	if len(args) != 1 {
		send(hello{Error: "usage: chromafs-embed NAME"})
		fmt.Fprintln(stderr, "usage: chromafs-embed NAME")
		return 2
	}
	ef, err := chromastore.EmbeddingFunction(args[0])
	if err != nil {
		send(hello{Error: err.Error()})
		fmt.Fprintf(stderr, "chromafs-embed: %v\n", err)
		return 2
	}
	if c, ok := ef.(io.Closer); ok {
		defer c.Close()
	}
	if !send(hello{Name: ef.Name(), Config: ef.GetConfig()}) {
		return 1
	}
	dec := json.NewDecoder(bufio.NewReaderSize(stdin, 1<<20))
	ctx := context.Background()
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintf(stderr, "chromafs-embed: read a request: %v\n", err)
			return 1
		}
		var a answer
		if a.Vectors, err = ef.EmbedDocuments(ctx, req.Texts); err != nil {
			a = answer{Error: err.Error()}
		}
		if !send(a) {
			return 1
		}
	}
}
