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
//	chromafs-embed -query
//
// It speaks JSON over stdin and stdout, one value per message. With NAME
// (for ingest) it embeds documents with chromastore.EmbeddingFunction(NAME).
// With -query (for search) it first reads {"spec": {...}, "dim": N,
// "override": "..."}, the arguments of embedfn.Build, and embeds queries
// with the function Build returns. It then writes {"name": ...,
// "config": {...}} (the function's name and configuration), and answers
// each {"texts": [...]} it reads with {"vectors": [[...], ...]} or
// {"error": "..."}, until stdin ends. A function it cannot build is
// reported as {"error": "..."} instead of the name, and the exit status
// is 2.
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
	"github.com/chromafs/chromafs/embedfn"
)

// hello is the first message: the function's name and configuration.
type hello struct {
	Name   string         `json:"name,omitempty"`
	Config map[string]any `json:"config,omitempty"`
	Error  string         `json:"error,omitempty"`
}

// querySetup is the first message of -query.
type querySetup struct {
	Spec     chromastore.EmbeddingSpec `json:"spec"`
	Dim      int                       `json:"dim"`
	Override string                    `json:"override"`
}

// queryFunc embeds each text as a query with an embedfn.Func.
type queryFunc struct{ f *embedfn.Func }

func (q queryFunc) Name() string              { return q.f.Name() }
func (q queryFunc) GetConfig() map[string]any { return nil }
func (q queryFunc) Close() error              { return q.f.Close() }

func (q queryFunc) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, err := q.f.EmbedQuery(ctx, t)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
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
		send(hello{Error: "usage: chromafs-embed NAME | chromafs-embed -query"})
		fmt.Fprintln(stderr, "usage: chromafs-embed NAME | chromafs-embed -query")
		return 2
	}
	dec := json.NewDecoder(bufio.NewReaderSize(stdin, 1<<20))
	var ef chromastore.Embedder
	var err error
	if args[0] == "-query" {
		var setup querySetup
		if err := dec.Decode(&setup); err != nil {
			fmt.Fprintf(stderr, "chromafs-embed: read the query setup: %v\n", err)
			return 2
		}
		var f *embedfn.Func
		if f, err = embedfn.Build(setup.Spec, setup.Dim, setup.Override); err == nil {
			ef = queryFunc{f}
		}
	} else {
		ef, err = chromastore.EmbeddingFunction(args[0])
	}
	if err != nil {
		// The caller reports it.
		send(hello{Error: err.Error()})
		return 2
	}
	if c, ok := ef.(io.Closer); ok {
		defer c.Close()
	}
	if !send(hello{Name: ef.Name(), Config: ef.GetConfig()}) {
		return 1
	}
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
