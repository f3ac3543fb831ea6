package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// adminVars are the variables the admin command needs to reach this
// `make run`: the emulators' endpoints, the dummy credentials of the
// emulators it started, the region and the table; the webhooks' queue
// its deliverer reads (the deliveries `domains check` records go at
// once) and the DNS resolver its domains are checked with.
var adminVars = []string{
	"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_DYNAMODB_STREAMS",
	"AWS_ENDPOINT_URL_KMS", "AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL_S3",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "TABLE_NAME", "KMS_KEY_ID",
	"WEBHOOK_QUEUE_URL", "DNS_RESOLVER",
}

// adminEnv is the admin command's environment for this `make run`, as
// NAME=value pairs in a stable order; unset variables are left out, and
// the region and table are always named so that nothing falls back to a
// default the operator did not see.
func adminEnv(env *environment) []string {
	var out []string
	for _, name := range adminVars {
		v := env.get(name)
		switch name {
		case "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY":
			// Only the emulators' dummy credentials are written; an
			// operator's own stay where they are.
			v = env.over[name]
		case "AWS_REGION":
			v = or(v, or(env.get("AWS_DEFAULT_REGION"), "us-east-1"))
		case "TABLE_NAME":
			v = or(v, "surveys")
		}
		if v != "" {
			out = append(out, name+"="+v)
		}
	}
	sort.Strings(out)
	return out
}

// exportLine is the banner's ready line for a shell: the admin command
// run after it reaches this `make run`.
func exportLine(pairs []string) string {
	return "export " + strings.Join(quoted(pairs), " ")
}

// quoted is pairs with each value quoted for a POSIX shell.
func quoted(pairs []string) []string {
	out := make([]string, len(pairs))
	for i, p := range pairs {
		name, value, _ := strings.Cut(p, "=")
		out[i] = name + "=" + shellQuote(value)
	}
	return out
}

// shellQuote quotes s for a POSIX shell when it holds anything but the
// characters an address or a name is made of.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+,=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeAdminEnv writes the admin command's environment to path (the
// Makefile's `make admin` sources it) and answers a function that removes
// it when `make run` stops. An empty path writes nothing.
func writeAdminEnv(path string, pairs []string) (remove func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("admin env file: %w", err)
	}
	body := "# Written by make run for the admin command (make admin ARGS='...'); removed when it stops.\n" +
		strings.Join(quoted(pairs), "\n") + "\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		return nil, fmt.Errorf("admin env file: %w", err)
	}
	return func() { _ = os.Remove(path) }, nil
}
