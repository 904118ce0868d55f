// Command reelflow-go-client starts a reelflow pipeline from Go with Temporal's own SDK,
// as a team whose backend is Go would: no reelflow code, only the wire contract
// (docs/other-languages.md): the workflow type `videoPipeline`, the input
// `{"definition": <the JSON definition>}`, the `status` query and the result.
//
// It prints one JSON object: {"workflowId","runId","status","result"} (or "error").
// Exit codes: 0 completed, 1 failed/cancelled or a client error, 2 bad usage,
// 3 the pipeline waits for an operator or is stuck (its status is printed; it keeps running).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
)

// The part of the `status` query's answer this client reads; the rest is kept as-is.
type pipelineStatus struct {
	State string `json:"state"`
	Stage string `json:"stage"`
	Error string `json:"error,omitempty"`
}

type output struct {
	WorkflowID string          `json:"workflowId"`
	RunID      string          `json:"runId"`
	Status     json.RawMessage `json:"status,omitempty"`
	Result     map[string]any  `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func main() {
	address := flag.String("address", envOr("TEMPORAL_ADDRESS", "127.0.0.1:7233"), "Temporal frontend host:port")
	namespace := flag.String("namespace", envOr("TEMPORAL_NAMESPACE", "default"), "Temporal namespace")
	taskQueue := flag.String("task-queue", envOr("REELFLOW_TASK_QUEUE", "reelflow"), "the reelflow worker's task queue")
	definitionPath := flag.String("definition", "", "the pipeline definition, a JSON file (- for stdin)")
	workflowID := flag.String("id", fmt.Sprintf("go-%d", time.Now().UnixNano()), "workflow id (the pipeline id)")
	timeout := flag.Duration("timeout", 10*time.Minute, "how long to wait for the pipeline")
	flag.Parse()
	if *definitionPath == "" {
		fmt.Fprintln(os.Stderr, "usage: reelflow-go-client -definition <file.json|-> [-task-queue reelflow] [-id <id>]")
		os.Exit(2)
	}
	definition, err := readDefinition(*definitionPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "definition:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	os.Exit(run(ctx, *address, *namespace, *taskQueue, *workflowID, definition))
}

// readDefinition parses the file as JSON only: reelflow's worker validates the definition
// itself and fails the pipeline with an error naming the field.
func readDefinition(p string) (map[string]any, error) {
	var raw []byte
	var err error
	if p == "-" {
		raw, err = io.ReadAll(os.Stdin)
	} else {
		raw, err = os.ReadFile(p)
	}
	if err != nil {
		return nil, err
	}
	var definition map[string]any
	if err := json.Unmarshal(raw, &definition); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %w", p, err)
	}
	return definition, nil
}

func run(ctx context.Context, address, namespace, taskQueue, id string, definition map[string]any) int {
	// The SDK logs to stdout by default: send its warnings to stderr, stdout is the JSON.
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	c, err := client.Dial(client.Options{HostPort: address, Namespace: namespace, Logger: logger})
	if err != nil {
		return report(output{WorkflowID: id, Error: "connect: " + err.Error()}, 1)
	}
	defer c.Close()

	// The workflow is named by its type string: Go needs no reelflow code to start it.
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue},
		"videoPipeline", map[string]any{"definition": definition})
	if err != nil {
		return report(output{WorkflowID: id, Error: "start: " + err.Error()}, 1)
	}
	out := output{WorkflowID: run.GetID(), RunID: run.GetRunID()}

	status, raw, err := waitWhileRunning(ctx, c, run)
	out.Status = raw
	if err != nil {
		out.Error = "status: " + err.Error()
		return report(out, 1)
	}
	if status.State == "waiting-operator" || status.State == "stuck" {
		return report(out, 3) // an operator resolves it (reelflow resolve); it keeps running
	}

	// The result is plain JSON: read it into a map (or a struct of the fields you need).
	var result map[string]any
	if err := run.Get(ctx, &result); err != nil {
		out.Error = err.Error() // a failed pipeline: the message names the stage and the cause
		return report(out, 1)
	}
	out.Result = result
	return report(out, 0)
}

// waitWhileRunning asks the `status` query until the pipeline is no longer running.
func waitWhileRunning(ctx context.Context, c client.Client, run client.WorkflowRun) (pipelineStatus, json.RawMessage, error) {
	for {
		var raw json.RawMessage
		resp, err := c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), "status")
		if err == nil {
			err = resp.Get(&raw)
		}
		if err != nil {
			return pipelineStatus{}, nil, err
		}
		var status pipelineStatus
		if err := json.Unmarshal(raw, &status); err != nil {
			return status, raw, err
		}
		if status.State != "running" {
			return status, raw, nil
		}
		select {
		case <-ctx.Done():
			return status, raw, errors.New("timed out while the pipeline was " + status.State)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func report(out output, code int) int {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return code
}
