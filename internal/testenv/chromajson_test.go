package testenv

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestChromaJSON: the body goes as JSON, the answer's numbers come back
// as json.Number, a nil out reads nothing, and an answer other than 2xx
// is an error naming the status and the body.
func TestChromaJSON(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch {
		case r.URL.Path == "/fail":
			http.Error(w, `{"error":"NotFoundError"}`, http.StatusNotFound)
		case r.Header.Get("Content-Type") != "application/json":
			http.Error(w, "no JSON", http.StatusBadRequest)
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"echo":` + string(b) + `,"n":12345678901234567890}`))
		default:
			_, _ = w.Write([]byte(`{"n":1.5}`))
		}
	}))
	defer srv.Close()
	var got struct {
		Echo map[string]any
		N    any
	}
	if err := ChromaJSON(http.MethodPost, srv.URL+"/add", map[string]any{"ids": []string{"a"}}, &got); err != nil {
		t.Fatal(err)
	}
	if n, ok := got.N.(json.Number); !ok || n.String() != "12345678901234567890" || got.Echo["ids"] == nil {
		t.Errorf("answer %+v: want the body echoed and n a json.Number", got)
	}
	if err := ChromaJSON(http.MethodGet, srv.URL+"/x", nil, nil); err != nil {
		t.Errorf("GET without out: %v", err)
	}
	err := ChromaJSON(http.MethodGet, srv.URL+"/fail", nil, &got)
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "NotFoundError") {
		t.Errorf("404 answer: %v, want an error with the status and body", err)
	}
}
