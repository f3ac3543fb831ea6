package links_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/smithy-go"

	"surveyservice/internal/testenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
)

func TestStoreErrorsPassThrough(t *testing.T) {
	cfg := awsConfig(t)
	missing := store.New(cfg, "no-such-table-"+fmt.Sprint(time.Now().UnixNano()))
	s := links.NewSealer(kms.NewFromConfig(cfg), testenv.KMSKeyID(t), missing)
	ctx := context.Background()
	if _, err := s.Seal(ctx, survey, []links.Payload{threeVars(0)}); err == nil || errors.Is(err, links.ErrInvalid) {
		t.Errorf("Seal on a missing table = %v, want the store's error", err)
	}
	raw := make([]byte, 5+12+16+3)
	raw[0] = 1
	raw[2] = 7
	_, err := s.Open(ctx, survey, b64.EncodeToString(raw))
	var oe *smithy.OperationError
	if err == nil || errors.Is(err, links.ErrInvalid) || !errors.As(err, &oe) {
		t.Errorf("Open on a missing table = %v, want the store's error, not ErrInvalid", err)
	}
}

func TestKMSErrorsPassThrough(t *testing.T) {
	c := newContainer(t)
	s := links.NewSealer(c.kms, "alias/no-such-key", c.st)
	ctx := context.Background()
	_, err := s.Seal(ctx, survey, []links.Payload{threeVars(0)})
	var oe *smithy.OperationError
	if err == nil || errors.Is(err, links.ErrInvalid) || !errors.As(err, &oe) {
		t.Errorf("Seal with an unknown KMS key = %v, want the KMS error", err)
	}
}
