// A program in another language that uses reelflow through its HTTP API (docs/api.md), with
// Go's standard library only: no Temporal SDK, no reelflow code. It starts a pipeline (once per
// idempotency key), follows its Server-Sent Events stream to the end event, then reads the
// result and checks that both say the same thing.
//
//	REELFLOW_URL=http://127.0.0.1:8080 REELFLOW_TOKEN=... go run . definition.json [idempotency-key]
//
// It prints one JSON line per event on stderr and a JSON summary on stdout; it exits 1 when the
// pipeline did not complete or the stream and the result disagree.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
)

type api struct {
	base  string
	token string
}

func (a api) do(method, path string, body []byte, headers map[string]string) (*http.Response, error) {
	req, err := http.NewRequest(method, a.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return http.DefaultClient.Do(req)
}

// decode reads a JSON answer, or the problem+json of an error.
func decode(res *http.Response, into any) error {
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("HTTP %d: %s", res.StatusCode, strings.TrimSpace(string(raw)))
	}
	return json.Unmarshal(raw, into)
}

type started struct {
	PipelineID string `json:"pipelineId"`
	Created    bool   `json:"created"`
}

type end struct {
	Status string          `json:"status"`
	Result json.RawMessage `json:"result"`
}

type event struct {
	Kind    string `json:"kind"`
	Version int64  `json:"version"`
	Status  struct {
		State string `json:"state"`
		Stage string `json:"stage"`
	} `json:"status"`
	End *end `json:"end"`
}

// follow reads the event stream until its end event; it resumes with Last-Event-ID if the
// connection drops before the end.
func follow(a api, id string) (*event, int, error) {
	lastID := ""
	count := 0
	for attempt := 0; attempt < 5; attempt++ {
		headers := map[string]string{"Accept": "text/event-stream"}
		if lastID != "" {
			headers["Last-Event-ID"] = lastID
		}
		res, err := a.do("GET", "/v1/pipelines/"+url.PathEscape(id)+"/events", nil, headers)
		if err != nil {
			continue
		}
		if res.StatusCode != 200 {
			return nil, count, decode(res, &struct{}{})
		}
		scanner := bufio.NewScanner(res.Body)
		scanner.Buffer(make([]byte, 1<<20), 1<<24)
		var data strings.Builder
		for scanner.Scan() {
			line := scanner.Text()
			switch {
			case strings.HasPrefix(line, "id:"):
				lastID = strings.TrimSpace(line[3:])
			case strings.HasPrefix(line, "data:"):
				data.WriteString(strings.TrimPrefix(line[5:], " "))
			case line == "" && data.Len() > 0:
				var e event
				if err := json.Unmarshal([]byte(data.String()), &e); err != nil {
					res.Body.Close()
					return nil, count, err
				}
				data.Reset()
				count++
				fmt.Fprintf(os.Stderr, "{\"kind\":%q,\"version\":%d,\"stage\":%q,\"state\":%q}\n", e.Kind, e.Version, e.Status.Stage, e.Status.State)
				if e.Kind == "end" {
					res.Body.Close()
					return &e, count, nil
				}
			}
		}
		res.Body.Close()
	}
	return nil, count, errors.New("the stream ended without an end event")
}

func run() error {
	if len(os.Args) < 2 {
		return errors.New("usage: go-http <definition.json> [idempotency-key]")
	}
	a := api{base: strings.TrimRight(os.Getenv("REELFLOW_URL"), "/"), token: os.Getenv("REELFLOW_TOKEN")}
	if a.base == "" || a.token == "" {
		return errors.New("REELFLOW_URL and REELFLOW_TOKEN are required")
	}
	definition, err := os.ReadFile(os.Args[1])
	if err != nil {
		return err
	}
	body := []byte(`{"definition":` + string(definition) + `}`)
	headers := map[string]string{}
	if len(os.Args) > 2 {
		headers["Idempotency-Key"] = os.Args[2]
	}
	res, err := a.do("POST", "/v1/pipelines", body, headers)
	if err != nil {
		return err
	}
	var s started
	if err := decode(res, &s); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	last, events, err := follow(a, s.PipelineID)
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	res, err = a.do("GET", "/v1/pipelines/"+url.PathEscape(s.PipelineID)+"/result", nil, nil)
	if err != nil {
		return err
	}
	var result end
	if err := decode(res, &result); err != nil {
		return fmt.Errorf("result: %w", err)
	}
	summary, _ := json.Marshal(map[string]any{
		"pipelineId": s.PipelineID, "created": s.Created, "events": events,
		"streamEnd": last.End.Status, "resultStatus": result.Status, "result": result.Result,
	})
	fmt.Println(string(summary))
	if result.Status != "completed" || last.End.Status != result.Status || !bytes.Equal(compact(last.End.Result), compact(result.Result)) {
		return fmt.Errorf("pipeline %s: stream said %s, result says %s", s.PipelineID, last.End.Status, result.Status)
	}
	return nil
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	_ = json.Compact(&b, raw)
	return b.Bytes()
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "go-http:", err)
		os.Exit(1)
	}
}
