package datakey_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// kmsClient is the SDK package whose init (its schemas and endpoints) costs
// every bootstrap that links it about 0.33 MB and 2.5 ms of cold start.
const kmsClient = "github.com/aws/aws-sdk-go-v2/service/kms"

// TestNoKMSBelowLinks: the packages every function links (the store), and
// those that only name a token's purpose (challenge, uploads), do not link
// the KMS client; only shared/links (the Sealer) does. A function that
// seals nothing, the theme images one among them, stays without it.
func TestNoKMSBelowLinks(t *testing.T) {
	for _, pkg := range []string{"surveyservice/shared/store", "surveyservice/shared/challenge", "surveyservice/shared/uploads", "surveyservice/functions/themeimages/lambda"} {
		t.Run(pkg, func(t *testing.T) {
			deps := goListDeps(t, pkg)
			if len(deps) < 10 {
				t.Fatalf("go list -deps %s: %d packages, too few to be its dependencies", pkg, len(deps))
			}
			if slices.Contains(deps, kmsClient) {
				t.Errorf("%s links %s", pkg, kmsClient)
			}
		})
	}
	// The check can fail: the sealer's package does link it.
	if !slices.Contains(goListDeps(t, "surveyservice/shared/links"), kmsClient) {
		t.Errorf("shared/links does not list %s: the check above would pass whatever the imports", kmsClient)
	}
}

func goListDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc nodynamic", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}
