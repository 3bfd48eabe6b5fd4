package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/chromafs/chromafs/chromastore"
)

// recordedFlags maps the embedding function names that collections record
// (chromastore.Collection.WrittenWith) to the ingest --embedding name that
// builds the same function.
var recordedFlags = map[string]string{
	chromastore.HashName:  "hash",
	chromastore.NgramName: "ngram",
	"default":             "default",
	"onnx_mini_lm_l6_v2":  "default",
}

// embedPlan is how ingest embeds: with which function, and what it does
// about the function the collection was embedded with before.
type embedPlan struct {
	ef   chromastore.Embedder
	name string // the --embedding name of ef
	// was is the recorded name of the function the collection's records
	// were embedded with ("" for a new collection, or when unknown), and
	// dim their dimension (0: none yet).
	was string
	dim int
	// reembed: ef differs from was but gives vectors of the same
	// dimension, so every chunk is written again in place.
	reembed bool
	// recreate: the collection is deleted and written again (--recreate).
	recreate bool
}

// describe names the function of a recorded name by its --embedding name
// when it has one ("ngram" for chromafs_ngram), else by the recorded name.
func describe(recorded string) string {
	if f, ok := recordedFlags[recorded]; ok {
		return f
	}
	return recorded
}

// planEmbedding decides how ingest embeds. name is --embedding ("" when
// not given: the function the collection was embedded with, or hash for
// a new collection); recreate is --recreate. It opens the collection once
// to read what it records, and builds the function (a caller must close
// plan.ef when it is an io.Closer).
//
// A function other than the collection's is never ignored: the chunks of
// unchanged pages would keep their old vectors, and searches would mix two
// functions. With the same dimension every chunk is re-embedded in place;
// with another one, which a Chroma collection cannot hold, the plan is
// refused unless recreate is set.
func planEmbedding(ctx context.Context, g *globals, name string, recreate bool) (*embedPlan, error) {
	p := &embedPlan{name: name, recreate: recreate}
	if name != "" {
		// A bad name, or a helper that does not start, is reported
		// before the collection is asked anything.
		var err error
		if p.ef, err = embeddingFunction(name); err != nil {
			return nil, err
		}
	}
	plan, err := p.against(ctx, g)
	if err != nil {
		p.close()
	}
	return plan, err
}

// against completes the plan with what the collection records.
func (p *embedPlan) against(ctx context.Context, g *globals) (*embedPlan, error) {
	probe, err := chromastore.Open(ctx, g.storeConfig(false))
	switch {
	case errors.Is(err, chromastore.ErrNoCollection):
	case err != nil:
		return nil, err
	default:
		p.was, p.dim = probe.WrittenWith(), probe.Dimension()
		probe.Close()
	}
	if p.ef == nil {
		switch {
		case p.was == "":
			p.name = "hash"
		case recordedFlags[p.was] == "":
			return nil, fmt.Errorf("ingest: collection %q was embedded with %s, which ingest cannot run; pass --embedding NAME (one of %s) to re-embed it with another function",
				g.collection, p.was, strings.Join(embeddingNames(), ", "))
		default:
			p.name = recordedFlags[p.was]
		}
		if p.ef, err = embeddingFunction(p.name); err != nil {
			return nil, err
		}
	}
	if p.recreate || p.dim == 0 {
		// Nothing embedded to keep consistent with.
		return p, nil
	}
	if d := declaredDim(p.ef); p.was == p.ef.Name() && (d == 0 || d == p.dim) {
		return p, nil
	}
	dim, err := probeDimension(ctx, p.ef)
	if err != nil {
		return nil, err
	}
	switch {
	case dim != p.dim:
		was := "an embedding function it does not record"
		if p.was != "" {
			was = describe(p.was)
		}
		return nil, fmt.Errorf(`ingest: collection %q was embedded with %s (%d dimensions) and --embedding %s gives %d: a Chroma collection keeps the dimension of its first vectors, so its records cannot be re-embedded in place.
To switch, add --recreate to delete the collection and write it again with %s (every record in it is deleted; programs that have it open must open it again), or ingest into a new collection with --collection NAME`,
			g.collection, was, p.dim, p.name, dim, p.name)
	case p.was == "":
		// Another writer's collection that records no function, and
		// vectors of ef's dimension: nothing says they differ.
	default:
		p.reembed = true
	}
	return p, nil
}

// close closes the plan's function when it holds a process.
func (p *embedPlan) close() {
	if p == nil {
		return
	}
	if c, ok := p.ef.(io.Closer); ok {
		c.Close()
	}
}

// declaredDim is the dimension that ef's configuration declares ("dim",
// as the hash and ngram functions have), or 0.
func declaredDim(ef chromastore.Embedder) int {
	switch d := ef.GetConfig()["dim"].(type) {
	case int:
		return d
	case float64:
		return int(d)
	}
	return 0
}

// probeDimension embeds one text with ef and returns the dimension of its
// vector.
func probeDimension(ctx context.Context, ef chromastore.Embedder) (int, error) {
	v, err := ef.EmbedDocuments(ctx, []string{"chromafs"})
	if err != nil {
		return 0, fmt.Errorf("ingest: learn the dimension of %s: %w", ef.Name(), err)
	}
	if len(v) != 1 || len(v[0]) == 0 {
		return 0, fmt.Errorf("ingest: learn the dimension of %s: it returned no vector", ef.Name())
	}
	return len(v[0]), nil
}
