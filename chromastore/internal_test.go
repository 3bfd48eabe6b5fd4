package chromastore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs/collection"
)

func TestChunkIndex(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want int
	}{
		{json.Number("0"), 0},
		{json.Number("7"), 7},
		{json.Number("3.0"), 3},
		{json.Number("3e0"), 3},
		{json.Number("-1"), collection.NoIndex},
		{json.Number("-0.0"), 0},
		{json.Number("2.5"), collection.NoIndex},
		{json.Number("99999999999999999999"), collection.NoIndex},
		{json.Number("1e300"), collection.NoIndex},
		{float64(4), 4},
		{4.5, collection.NoIndex},
		{int64(5), 5},
		{int64(-5), collection.NoIndex},
		{6, 6},
		{-6, collection.NoIndex},
		{"8", collection.NoIndex},
		{"007", collection.NoIndex},
		{"0", collection.NoIndex},
		{"", collection.NoIndex},
		{"-8", collection.NoIndex},
		{"+8", collection.NoIndex},
		{"8.0", collection.NoIndex},
		{" 8", collection.NoIndex},
		{"1234567890123456789", collection.NoIndex},
		{true, collection.NoIndex},
		{nil, collection.NoIndex},
		{[]any{json.Number("1")}, collection.NoIndex},
	} {
		if got := chunkIndex(tc.v); got != tc.want {
			t.Errorf("chunkIndex(%#v) = %d, want %d", tc.v, got, tc.want)
		}
	}
}

func TestPlainMetadata(t *testing.T) {
	got := plainMetadata(map[string]any{
		"i": json.Number("3"), "f": json.Number("3.0"), "e": json.Number("1e3"),
		"s": "x", "b": true, "a": []any{json.Number("1"), "y"},
	})
	want := map[string]any{"i": int64(3), "f": 3.0, "e": 1000.0, "s": "x", "b": true, "a": []any{int64(1), "y"}}
	if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
		t.Errorf("plainMetadata = %#v, want %#v", got, want)
	}
	if plainMetadata(nil) != nil {
		t.Error("plainMetadata(nil) != nil")
	}
}

func TestBatches(t *testing.T) {
	var vals []int
	for i := range 7 {
		vals = append(vals, i)
	}
	got := batches(vals, 3)
	if len(got) != 3 || !slices.Equal(got[2], []int{6}) || cap(got[0]) != 3 {
		t.Errorf("batches = %v", got)
	}
	if batches([]int(nil), 3) != nil {
		t.Error("batches of nothing is not empty")
	}
	// Appending to a batch must not overwrite the next one.
	_ = append(got[0], 99)
	if got[1][0] != 3 {
		t.Error("batches share capacity")
	}
}

func TestParallel(t *testing.T) {
	var running, peak atomic.Int32
	boom := errors.New("boom")
	err := parallel(context.Background(), 20, func(ctx context.Context, i int) error {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if i == 5 {
			return boom
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
			return nil
		}
	})
	if err != boom {
		t.Errorf("parallel = %v, want the first error", err)
	}
	if p := peak.Load(); p > maxParallel {
		t.Errorf("%d calls at once, want at most %d", p, maxParallel)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int32
	err = parallel(ctx, 10, func(ctx context.Context, i int) error { calls.Add(1); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("parallel with a cancelled context = %v (%d calls)", err, calls.Load())
	}
}

func TestAPIError(t *testing.T) {
	e := &APIError{Status: 404, Kind: "NotFoundError", Message: "Collection [x] does not exists"}
	if !noCollection(e) || !noCollection(fmt.Errorf("wrapped: %w", e)) {
		t.Error("noCollection misses Chroma's 404")
	}
	if noCollection(&APIError{Status: 404, Message: "Tenant not found"}) || noCollection(&APIError{Status: 500, Message: "collection"}) {
		t.Error("noCollection matches other errors")
	}
	want := "chroma answered 404 Not Found (NotFoundError): Collection [x] does not exists"
	if e.Error() != want {
		t.Errorf("Error() = %q", e.Error())
	}
}

// TestDefaultTimeout: a zero Config.Timeout bounds each request by
// DefaultTimeout, a negative one by nothing but the context.
func TestDefaultTimeout(t *testing.T) {
	for _, tt := range []struct {
		in, want time.Duration
	}{{0, DefaultTimeout}, {-1, 0}, {time.Second, time.Second}} {
		cfg, api, err := Config{URL: "http://127.0.0.1:1", Collection: "c", Timeout: tt.in}.normalize()
		if err != nil {
			t.Fatal(err)
		}
		if r, _ := client(cfg, api); r.timeout != tt.want {
			t.Errorf("Timeout %v: requests bounded by %v, want %v", tt.in, r.timeout, tt.want)
		}
	}
}
