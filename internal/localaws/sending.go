package localaws

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
)

// EnsureMailIdentity makes from (MAIL_FROM) a verified SES identity, as a
// deployment verifies its address or domain once by hand (SES, like moto,
// refuses mail from an unverified identity).
func EnsureMailIdentity(ctx context.Context, cfg aws.Config, from string) error {
	_, err := sesv2.NewFromConfig(cfg).CreateEmailIdentity(ctx, &sesv2.CreateEmailIdentityInput{EmailIdentity: aws.String(from)})
	var exists *types.AlreadyExistsException
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("localaws: verify mail identity %s: %w", from, err)
	}
	return nil
}

// EnsureSMSPreferences sets the account's SMS preferences as a deployment
// sets them once (`aws sns set-sms-attributes`): transactional messages,
// and the default sender id SMS_SENDER_ID names (none when empty).
func EnsureSMSPreferences(ctx context.Context, cfg aws.Config, senderID string) error {
	attrs := map[string]string{"DefaultSMSType": "Transactional"}
	if senderID != "" {
		attrs["DefaultSenderID"] = senderID
	}
	if _, err := sns.NewFromConfig(cfg).SetSMSAttributes(ctx, &sns.SetSMSAttributesInput{Attributes: attrs}); err != nil {
		return fmt.Errorf("localaws: SMS preferences: %w", err)
	}
	return nil
}
