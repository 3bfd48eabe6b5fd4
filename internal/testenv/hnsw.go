package testenv

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// SetEfSearch sets the HNSW ef_search of the collection with id
// collectionID on the Chroma server at url, failing tb if Chroma refuses.
// Tests of vector search raise it past their collections' record counts
// so that the index searches its whole graph: the test embeddings'
// vectors are close to orthogonal, on which Chroma's default of 100
// misses a nearest chunk now and then, and such tests check chromafs's
// answers, not the index's recall.
func SetEfSearch(tb testing.TB, url, collectionID string, ef int) {
	tb.Helper()
	u := url + "/api/v2/tenants/default_tenant/databases/default_database/collections/" + collectionID
	body := fmt.Sprintf(`{"new_configuration":{"hnsw":{"ef_search":%d}}}`, ef)
	req, err := http.NewRequest("PUT", u, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		tb.Fatalf("set ef_search of collection %s: %s", collectionID, res.Status)
	}
}
