package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"draplane.dev/tests/reference/gen"
	"draplane.dev/tests/reference/scenario"
)

// Config controls a differential run.
type Config struct {
	// Seeds [SeedStart, SeedEnd) are generated, unless Files is set.
	SeedStart, SeedEnd uint64
	// Files are scenario files to run instead of generated ones.
	Files []string
	// Draplane is the path of the draplane binary; empty = self-check mode
	// (every scenario parses, generator and draref are deterministic).
	Draplane string
	// OutDir receives the mismatching scenarios.
	OutDir string
	// Jobs is the number of scenarios run in parallel (default NumCPU).
	Jobs int
	// Timeout bounds one upstream Allocate call (default 10 s). Scenarios
	// where upstream times out are skipped.
	Timeout time.Duration
	// DraplaneTimeout bounds one draplane process (default 60 s).
	DraplaneTimeout time.Duration
	// Full also compares error messages and complete allocation objects.
	Full bool
	// Minimize shrinks mismatching scenarios before writing them.
	Minimize bool
	// Log receives progress and failure lines (default os.Stderr).
	Log io.Writer
}

// Summary counts the scenarios.
type Summary struct {
	Passed, Failed, Skipped int
}

func (s Summary) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", s.Passed, s.Failed, s.Skipped)
}

type item struct {
	name string // scenario name or file
	seed *uint64
	data []byte
	ext  string
}

type outcome struct {
	status  string // pass, fail, skip
	message string
}

// Run executes the configured differential test.
func Run(cfg Config) (Summary, error) {
	if cfg.Jobs <= 0 {
		cfg.Jobs = runtime.NumCPU()
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = scenario.DefaultTimeout
	}
	if cfg.DraplaneTimeout == 0 {
		cfg.DraplaneTimeout = 60 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	if cfg.OutDir == "" {
		cfg.OutDir = "draref-mismatches"
	}
	if cfg.Draplane != "" {
		abs, err := filepath.Abs(cfg.Draplane)
		if err != nil {
			return Summary{}, err
		}
		cfg.Draplane = abs
	}
	var items []func() item
	if len(cfg.Files) > 0 {
		files, err := expandFiles(cfg.Files)
		if err != nil {
			return Summary{}, err
		}
		for _, f := range files {
			items = append(items, func() item {
				data, err := os.ReadFile(f)
				if err != nil {
					data = nil
				}
				ext := strings.TrimPrefix(filepath.Ext(f), ".")
				return item{name: f, data: data, ext: ext}
			})
		}
	} else {
		for s := cfg.SeedStart; s < cfg.SeedEnd; s++ {
			items = append(items, func() item {
				sc := gen.Generate(s)
				return item{name: sc.Name, seed: &s, data: sc.Data, ext: sc.Ext}
			})
		}
	}
	tmp, err := os.MkdirTemp("", "draref-diff-")
	if err != nil {
		return Summary{}, err
	}
	defer os.RemoveAll(tmp)

	results := make([]outcome, len(items))
	done := make([]chan struct{}, len(items))
	for i := range done {
		done[i] = make(chan struct{})
	}
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < cfg.Jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(items) {
					return
				}
				results[i] = cfg.runOne(items[i](), tmp)
				close(done[i])
			}
		}()
	}
	// Report in order, as results arrive.
	var sum Summary
	start := time.Now()
	for i := range items {
		<-done[i]
		switch results[i].status {
		case "pass":
			sum.Passed++
		case "skip":
			sum.Skipped++
			fmt.Fprintf(cfg.Log, "SKIP %s\n", results[i].message)
		default:
			sum.Failed++
			fmt.Fprintf(cfg.Log, "FAIL %s\n", results[i].message)
		}
		if (i+1)%1000 == 0 && i+1 < len(items) {
			fmt.Fprintf(cfg.Log, "... %d/%d scenarios, %s (%s)\n", i+1, len(items), sum, time.Since(start).Round(time.Second))
		}
	}
	wg.Wait()
	return sum, nil
}

func expandFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			name := e.Name()
			if !e.IsDir() && (strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || (strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".expected.json") && !strings.Contains(name, ".draref.") && !strings.Contains(name, ".draplane."))) {
				out = append(out, filepath.Join(p, name))
			}
		}
	}
	return out, nil
}

func (cfg *Config) replay(it item) string {
	if it.seed != nil {
		return fmt.Sprintf("draref gen --seed %d --out -", *it.seed)
	}
	return "draref allocate -f " + it.name
}

func (cfg *Config) runOne(it item, tmp string) outcome {
	label := it.name
	if it.data == nil {
		return outcome{"fail", label + ": cannot read file"}
	}
	if it.seed != nil {
		// The generator must be deterministic.
		if again := gen.Generate(*it.seed); !bytes.Equal(again.Data, it.data) {
			return outcome{"fail", fmt.Sprintf("%s: generator not deterministic for seed %d", label, *it.seed)}
		}
	}
	sc, err := scenario.Parse(it.data, it.name)
	if err != nil {
		if it.seed != nil {
			return outcome{"fail", fmt.Sprintf("%s: generated scenario does not parse: %v (replay: %s)", label, err, cfg.replay(it))}
		}
	}
	var ref *scenario.Result
	if err != nil {
		ref = scenario.InvalidScenarioResult(err)
	} else {
		ref = scenario.Run(context.Background(), sc, scenario.Options{Timeout: cfg.Timeout})
	}
	if ref.Error != nil && ref.Error.Class == scenario.ClassTimeout {
		return outcome{"skip", fmt.Sprintf("%s: upstream timed out after %s", label, cfg.Timeout)}
	}
	refJSON := scenario.Marshal(ref, true)
	if cfg.Draplane == "" {
		if sc == nil {
			return outcome{"fail", fmt.Sprintf("%s: %s", label, ref.Error.Message)}
		}
		again := scenario.Run(context.Background(), sc, scenario.Options{Timeout: cfg.Timeout})
		if again.Error != nil && again.Error.Class == scenario.ClassTimeout {
			return outcome{"skip", fmt.Sprintf("%s: upstream timed out after %s", label, cfg.Timeout)}
		}
		if !bytes.Equal(refJSON, scenario.Marshal(again, true)) {
			return outcome{"fail", fmt.Sprintf("%s: draref is not deterministic (replay: %s)", label, cfg.replay(it))}
		}
		return outcome{"pass", ""}
	}

	got, gotRaw, err := cfg.runDraplane(it.data, it.ext, tmp)
	var diffs []Difference
	if err != nil {
		diffs = []Difference{{Category: "draplane", Detail: err.Error()}}
	} else {
		diffs = Compare(OutcomeOf(ref), got, cfg.Full)
	}
	if len(diffs) == 0 {
		return outcome{"pass", ""}
	}
	data, ext := it.data, it.ext
	if cfg.Minimize {
		if m := cfg.minimize(it.data, diffs[0].Category, tmp); m != nil {
			data, ext, refJSON, gotRaw, diffs = m.data, "yaml", m.refJSON, m.gotJSON, m.diffs
		}
	}
	written := cfg.writeMismatch(it, data, ext, refJSON, gotRaw, diffs)
	return outcome{"fail", fmt.Sprintf("%s: %s (replay: %s; written: %s)", label, diffs[0], cfg.replay(it), written)}
}

// runDraplane runs `draplane allocate -f FILE -o json` on the data.
func (cfg *Config) runDraplane(data []byte, ext, tmp string) (*Outcome, []byte, error) {
	if ext == "" {
		ext = "yaml"
	}
	f, err := os.CreateTemp(tmp, "scenario-*."+ext)
	if err != nil {
		return nil, nil, err
	}
	path := f.Name()
	defer os.Remove(path)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, nil, err
	}
	f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.DraplaneTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.Draplane, "allocate", "-f", path, "-o", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, stdout.Bytes(), fmt.Errorf("draplane did not finish within %s", cfg.DraplaneTimeout)
	}
	o, err := DecodeOutcome(stdout.Bytes())
	if err != nil {
		return nil, stdout.Bytes(), fmt.Errorf("draplane output is not a result document (%v; exit: %v; stderr: %s)", err, runErr, tail(stderr.String(), 400))
	}
	return o, stdout.Bytes(), nil
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

func (cfg *Config) writeMismatch(it item, data []byte, ext string, refJSON, gotJSON []byte, diffs []Difference) string {
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return "(not written: " + err.Error() + ")"
	}
	base := filepath.Base(it.name)
	if it.seed == nil {
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if ext == "" {
		ext = "yaml"
	}
	path := filepath.Join(cfg.OutDir, base+"."+ext)
	var report bytes.Buffer
	for _, d := range diffs {
		fmt.Fprintln(&report, d)
	}
	fmt.Fprintf(&report, "replay: %s\n", cfg.replay(it))
	writes := map[string][]byte{
		path: data,
		filepath.Join(cfg.OutDir, base+".draref.json"):   refJSON,
		filepath.Join(cfg.OutDir, base+".draplane.json"): gotJSON,
		filepath.Join(cfg.OutDir, base+".diff.txt"):      report.Bytes(),
	}
	for p, b := range writes {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return "(not written: " + err.Error() + ")"
		}
	}
	return path
}
