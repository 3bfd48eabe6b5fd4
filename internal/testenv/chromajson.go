package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// ChromaJSON sends body (nil: none) as JSON with method to u, a URL of
// Chroma's HTTP API, within 30 s, and decodes the answer into out
// (numbers as json.Number), unless out is nil. An answer other than 2xx
// is an error that holds the method, the URL, the status and the body.
// Tests that read or copy collections behind chromastore's back (the
// writers' collections) use it.
func ChromaJSON(method, u string, body, out any) error {
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, b.String())
	}
	if out == nil {
		return nil
	}
	d := json.NewDecoder(resp.Body)
	d.UseNumber()
	return d.Decode(out)
}
