package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/mcpserver"
)

// rawClient is an MCP client as lean as the protocol allows: it writes
// each request as one JSON-RPC message and decodes each answer once with
// encoding/json, with none of the SDK client's layers. Its calls measure
// what a server costs per call without the Go SDK client's decoding
// (which decodes an answer several times over).
type rawClient struct {
	tb testing.TB
	id int
	// roundTrip sends one JSON-RPC message and returns the answer's
	// JSON-RPC message, or nil for a notification.
	roundTrip func(msg []byte, notification bool) []byte
	req       bytes.Buffer
}

// rawAnswer is a tools/call answer as the raw client decodes it.
type rawAnswer struct {
	ID     int `json:"id"`
	Result struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// initialize opens the session as every MCP client does.
func (c *rawClient) initialize() {
	c.tb.Helper()
	c.id++
	answer := c.roundTrip([]byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(c.id)+`,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`), false)
	var a struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal(answer, &a); err != nil || a.Result.ProtocolVersion == "" {
		c.tb.Fatalf("initialize: %v: %s", err, answer)
	}
	c.roundTrip([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`), true)
}

// text calls tool name with args (a JSON object) and returns its text.
func (c *rawClient) text(name, args string) string {
	c.tb.Helper()
	c.id++
	c.req.Reset()
	c.req.WriteString(`{"jsonrpc":"2.0","id":`)
	c.req.WriteString(strconv.Itoa(c.id))
	c.req.WriteString(`,"method":"tools/call","params":{"name":`)
	c.req.WriteString(strconv.Quote(name))
	c.req.WriteString(`,"arguments":`)
	c.req.WriteString(args)
	c.req.WriteString(`}}`)
	answer := c.roundTrip(c.req.Bytes(), false)
	var a rawAnswer
	if err := json.Unmarshal(answer, &a); err != nil {
		c.tb.Fatalf("%s %s: %v", name, args, err)
	}
	if a.ID != c.id || a.Error != nil || a.Result.IsError || len(a.Result.Content) != 1 {
		c.tb.Fatalf("%s %s: %s", name, args, answer)
	}
	return a.Result.Content[0].Text
}

// rawPipe connects a raw client to srv over an in-memory connection
// framed as stdio is (one JSON-RPC message a line), the transport of
// mcp.NewInMemoryTransports and of chromafs mcp.
func rawPipe(tb testing.TB, srv *mcp.Server) *rawClient {
	tb.Helper()
	cc, sc := net.Pipe()
	ss, err := srv.Connect(context.Background(), &mcp.IOTransport{Reader: sc, Writer: nopCloser{sc}}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cc.Close()
		ss.Wait()
	})
	r := bufio.NewReaderSize(cc, 64<<10)
	c := &rawClient{tb: tb}
	var line []byte
	c.roundTrip = func(msg []byte, notification bool) []byte {
		line = append(append(line[:0], msg...), '\n')
		if _, err := cc.Write(line); err != nil {
			tb.Fatal(err)
		}
		if notification {
			return nil
		}
		answer, err := r.ReadBytes('\n')
		if err != nil {
			tb.Fatal(err)
		}
		return answer
	}
	c.initialize()
	return c
}

// nopCloser lets the server's transport close its reader only, so that
// the connection is closed once.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// httpServer serves srv over streamable HTTP on a loopback port, as
// chromafs serve --mcp does (the SDK's handler, answers as server-sent
// events), and returns its URL.
func httpServer(tb testing.TB, srv *mcp.Server) string {
	tb.Helper()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	tb.Cleanup(ts.Close)
	return ts.URL
}

// rawHTTP connects a raw client to the streamable HTTP endpoint url: each
// message is one POST, each answer read from the response's one event.
func rawHTTP(tb testing.TB, url string) *rawClient {
	tb.Helper()
	hc := &http.Client{}
	c := &rawClient{tb: tb}
	session := ""
	var body []byte
	c.roundTrip = func(msg []byte, notification bool) []byte {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(msg))
		if err != nil {
			tb.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		defer resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		body, err = io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode/100 != 2 {
			tb.Fatalf("POST: %v %s: %s", err, resp.Status, body)
		}
		if notification {
			return nil
		}
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			// The answer is the data of the stream's one message event.
			for line := range bytes.Lines(body) {
				if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
					return data
				}
			}
			tb.Fatalf("no data in %q", body)
		}
		return body
	}
	c.initialize()
	tb.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, url, nil)
		req.Header.Set("Mcp-Session-Id", session)
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
		}
		hc.CloseIdleConnections()
	})
	return c
}

// sdkHTTP connects the SDK's client to the streamable HTTP endpoint url.
func sdkHTTP(tb testing.TB, url string) *client {
	tb.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return &client{tb, cs}
}

// TestRawClient checks that the raw client of the benchmarks reads what
// the SDK's client reads, over both transports.
func TestRawClient(t *testing.T) {
	content := "line one\n\tline <two> & \"three\"\n"
	fsys := fstest.MapFS{"docs/a.md": &fstest.MapFile{Data: []byte(content)}}
	srv := mcpserver.New(mcpserver.Config{FS: func(context.Context) (fs.FS, error) { return fsys, nil }})
	url := httpServer(t, srv)
	sdk := connectServer(t, srv)
	for name, c := range map[string]*rawClient{"pipe": rawPipe(t, srv), "http": rawHTTP(t, url)} {
		for _, call := range []struct{ tool, args string }{
			{"read", `{"path":"/docs/a.md"}`},
			{"ls", `{"path":"/docs"}`},
		} {
			var args map[string]any
			if err := json.Unmarshal([]byte(call.args), &args); err != nil {
				t.Fatal(err)
			}
			if got, want := c.text(call.tool, call.args), sdk.text(call.tool, args); got != want {
				t.Errorf("%s: %s %s: %q, the SDK's client %q", name, call.tool, call.args, got, want)
			}
		}
	}
	if got, want := sdkHTTP(t, url).text("read", map[string]any{"path": "/docs/a.md"}), catN(content); got != want {
		t.Errorf("SDK over HTTP: read: %q, want %q", got, want)
	}
	replay, replayed := replayPipe(t, srv)
	for i := range 3 {
		if got, want := replay.text("read", map[string]any{"path": "/docs/a.md"}), catN(content); got != want {
			t.Errorf("replayed read %d: %q, want %q", i, got, want)
		}
	}
	if n := replayed.Load(); n != 2 {
		t.Errorf("%d answers replayed, want 2", n)
	}
}

// replayPipe connects the SDK's client over an in-memory connection framed
// as stdio is (the transport of mcp.NewInMemoryTransports) to a relay that
// forwards each message to srv and each answer back, except that it
// answers a tools/call it has seen before (the same method and params,
// another id) itself, with srv's answer to the first one, without asking
// srv. Repeated calls through it measure the SDK client's own cost per
// call: writing the request, reading and decoding the answer. replayed
// counts the answers the relay gave itself.
func replayPipe(tb testing.TB, srv *mcp.Server) (c *client, replayed *atomic.Int64) {
	tb.Helper()
	cc, rc := net.Pipe() // the client and the relay
	rs, sc := net.Pipe() // the relay and the server
	ss, err := srv.Connect(context.Background(), &mcp.IOTransport{Reader: sc, Writer: nopCloser{sc}}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	var (
		mu      sync.Mutex
		pending = map[string]string{} // id of a call srv answers -> its key
		answers = map[string][]byte{} // key -> the answer after its id
	)
	writeClient := func(line []byte) {
		mu.Lock()
		defer mu.Unlock()
		rc.Write(line) // errors end the client's reads
	}
	replayed = new(atomic.Int64)
	done := make(chan struct{})
	go func() { // the server's messages, to the client
		defer close(done)
		r := bufio.NewReaderSize(rs, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var m message
			if json.Unmarshal(line, &m) == nil && m.Method == "" && m.ID != nil {
				mu.Lock()
				if key, ok := pending[string(m.ID)]; ok {
					delete(pending, string(m.ID))
					// The answer after its id: {"jsonrpc":"2.0","id":N,...
					if _, rest, ok := bytes.Cut(line, append([]byte(`"id":`), m.ID...)); ok {
						answers[key] = rest
					}
				}
				mu.Unlock()
			}
			writeClient(line)
		}
	}()
	go func() { // the client's messages, to the server or answered here
		defer rs.Close()
		r := bufio.NewReaderSize(rc, 64<<10)
		var answer []byte
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var m message
			if json.Unmarshal(line, &m) == nil && m.Method == "tools/call" && m.ID != nil {
				key := string(m.Params)
				mu.Lock()
				rest, ok := answers[key]
				if !ok {
					pending[string(m.ID)] = key
				}
				mu.Unlock()
				if ok {
					replayed.Add(1)
					answer = append(append(append(answer[:0], `{"jsonrpc":"2.0","id":`...), m.ID...), rest...)
					writeClient(answer)
					continue
				}
			}
			if _, err := rs.Write(line); err != nil {
				return
			}
		}
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: cc, Writer: nopCloser{cc}}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cs.Close()
		cc.Close()
		rc.Close()
		<-done
		ss.Wait()
	})
	return &client{tb, cs}, replayed
}
