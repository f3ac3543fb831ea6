package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"surveyservice/internal/testenv"
)

// TestRunKeepsItsData is a person's Ctrl-C and `make run` again: the
// second run finds the survey the walkthrough made, its response, its
// personalised link (sealed under a data key of the first run), the demo
// account's API key and a file in the uploads bucket, and prints the same
// key and demo survey.
func TestRunKeepsItsData(t *testing.T) {
	testenv.Store(t) // integration test: not in -short
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{"PORT": freePort(t), "HOME": os.Getenv("HOME"), "LOCAL_DATA_DIR": filepath.Join(dir, "data"),
		"ADMIN_ENV_FILE": filepath.Join(dir, "admin.env")}
	first := startRun(t, env)
	key, base, stop := first.key, first.base, first.stop
	if key == "" {
		t.Fatal("the first run printed no API key")
	}
	out := runWalkthrough(t, first)
	link := lineAfter(t, out, "Personalised link: ")
	page := lineAfter(t, out, "Survey page: ")
	slug := strings.Trim(strings.TrimPrefix(page, base+"/s/"), "/")
	qs := link[strings.Index(link, "qs=")+3:]
	putObject(t, env["ADMIN_ENV_FILE"], "kept-by-the-test", "hello")
	stop()

	env["PORT"] = freePort(t)
	key2, base2, stop2 := startStoppable(t, env)
	t.Cleanup(stop2)
	if key2 != key {
		t.Errorf("the second run printed the API key %q, want the first run's %q", key2, key)
	}
	var folders []struct {
		Name    string
		Surveys []struct {
			ID                 int64  `json:"id"`
			URLSlug            string `json:"url_slug"`
			SubmittedResponses int    `json:"submitted_responses"`
		}
	}
	if code := getJSON(t, base2+"/api/folders/", key, &folders); code != 200 {
		t.Fatalf("folders with the kept key = %d", code)
	}
	var id int64
	for _, f := range folders {
		for _, s := range f.Surveys {
			if s.URLSlug == slug {
				id = s.ID
				if s.SubmittedResponses != 1 {
					t.Errorf("the walkthrough's survey has %d submitted responses after the restart, want 1", s.SubmittedResponses)
				}
			}
		}
	}
	if id == 0 {
		t.Fatalf("the walkthrough's survey %s is gone after the restart: %+v", slug, folders)
	}
	var responses struct {
		Results []struct {
			Variables map[string]any `json:"variables"`
		}
	}
	if code := getJSON(t, base2+"/api/surveys/"+itoa(id)+"/responses/", key, &responses); code != 200 || len(responses.Results) != 1 {
		t.Errorf("responses after the restart = %d %+v, want the one response", code, responses)
	}
	// The personalised link opens a session: its data key (sealed by the
	// first run's KMS key) opens under the second run.
	var session struct {
		Session string         `json:"session"`
		Values  map[string]any `json:"values"`
	}
	if code := postJSON(t, base2+"/api/public/surveys/"+slug+"/sessions/", `{"qs": "`+qs+`"}`, &session); code != 201 || session.Values["team"] != "blue" {
		t.Errorf("the kept personalised link = %d %+v, want 201 with team blue", code, session)
	}
	if got := getObject(t, env["ADMIN_ENV_FILE"], "kept-by-the-test"); got != "hello" {
		t.Errorf("the uploads bucket's file after the restart = %q, want hello", got)
	}
}

// runWalkthrough runs examples/walkthrough.sh against a run as the README
// says: the banner's export line pasted into another terminal, then the
// script. It answers the script's output.
func runWalkthrough(t *testing.T, r running) string {
	t.Helper()
	var export string
	for _, line := range r.banner {
		if l, ok := strings.CutPrefix(line, "  export KEY="); ok {
			export = "export KEY=" + l
		}
	}
	if export == "" {
		t.Fatalf("the banner has no export KEY=... line:\n%s", strings.Join(r.banner, "\n"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", export+" && bash ../../examples/walkthrough.sh")
	cmd.Env = slices.DeleteFunc(os.Environ(), func(v string) bool { return strings.HasPrefix(v, "KEY=") || strings.HasPrefix(v, "BASE=") })
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("walkthrough: %v\n%s", err, out)
	}
	return string(out)
}

// lineAfter answers the rest of the first line of out starting with
// prefix.
func lineAfter(t *testing.T, out, prefix string) string {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("no line %q in:\n%s", prefix, out)
	return ""
}

// uploadsClient is an S3 client on the moto a run started, read from the
// environment file it writes for the admin command.
func uploadsClient(t *testing.T, envFile string) *s3.Client {
	t.Helper()
	b, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "="); ok {
			vars[k] = strings.Trim(v, "'")
		}
	}
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(vars["AWS_ENDPOINT_URL"])
		o.UsePathStyle = true
	})
}

func putObject(t *testing.T, envFile, key, body string) {
	t.Helper()
	_, err := uploadsClient(t, envFile).PutObject(t.Context(), &s3.PutObjectInput{
		Bucket: aws.String("survey-uploads"), Key: aws.String(key), Body: bytes.NewReader([]byte(body)), ContentType: aws.String("text/plain")})
	if err != nil {
		t.Fatal(err)
	}
}

func getObject(t *testing.T, envFile, key string) string {
	t.Helper()
	out, err := uploadsClient(t, envFile).GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String("survey-uploads"), Key: aws.String(key)})
	if err != nil {
		t.Errorf("get %s: %v", key, err)
		return ""
	}
	defer out.Body.Close()
	b, _ := io.ReadAll(out.Body)
	return string(b)
}

// postJSON posts a JSON body without a key and decodes the answer.
func postJSON(t *testing.T, url, body string, out any) int {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, out); err != nil {
		t.Errorf("POST %s: %d %s", url, resp.StatusCode, b)
	}
	return resp.StatusCode
}
