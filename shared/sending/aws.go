package sending

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	sestypes "github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
)

// AWS sends email with SES (SESv2 SendEmail, from MAIL_FROM) and SMS with
// SNS (Publish to a phone number, with the sender id SMS_SENDER_ID where
// the destination country supports one).
type AWS struct {
	ses      *sesv2.Client
	sns      *sns.Client
	from     string
	senderID string
}

var _ Sender = (*AWS)(nil)

// Config is what the AWS sender needs besides its clients.
type Config struct {
	// MailFrom is the verified SES identity (an address, or an address of
	// a verified domain) emails come from: MAIL_FROM.
	MailFrom string
	// SenderID is the alphanumeric sender id of SMS (SMS_SENDER_ID); empty
	// leaves it to SNS.
	SenderID string
}

// ConfigFromEnv reads MAIL_FROM and SMS_SENDER_ID. A missing MAIL_FROM is
// an error: a function that sends cannot start without it.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{MailFrom: getenv("MAIL_FROM"), SenderID: getenv("SMS_SENDER_ID")}
	if c.MailFrom == "" {
		return Config{}, errors.New("sending: MAIL_FROM is not set (the SES identity emails come from)")
	}
	return c, nil
}

// New is the AWS sender on the clients of cfg.
func New(cfg aws.Config, c Config) *AWS {
	return &AWS{ses: sesv2.NewFromConfig(cfg), sns: sns.NewFromConfig(cfg), from: c.MailFrom, senderID: c.SenderID}
}

// FromEnv is New with the configuration of the environment (ConfigFromEnv).
func FromEnv(cfg aws.Config, getenv func(string) string) (*AWS, error) {
	c, err := ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	return New(cfg, c), nil
}

// Send sends m by its channel; a failure wraps ErrNotSent.
func (a *AWS) Send(ctx context.Context, m Message) error {
	var err error
	switch m.Channel {
	case ChannelEmail:
		err = a.email(ctx, m)
	case ChannelSMS:
		err = a.sms(ctx, m)
	default:
		err = fmt.Errorf("unknown channel %q", m.Channel)
	}
	if err != nil {
		return NotSent(m, err)
	}
	return nil
}

func (a *AWS) email(ctx context.Context, m Message) error {
	utf8 := aws.String("UTF-8")
	_, err := a.ses.SendEmail(ctx, &sesv2.SendEmailInput{
		FromEmailAddress: aws.String(a.from),
		Destination:      &sestypes.Destination{ToAddresses: []string{m.To}},
		Content: &sestypes.EmailContent{Simple: &sestypes.Message{
			Subject: &sestypes.Content{Data: aws.String(SubjectLine(m.Subject)), Charset: utf8},
			Body:    &sestypes.Body{Text: &sestypes.Content{Data: aws.String(m.Body), Charset: utf8}},
		}},
	})
	if err != nil {
		return fmt.Errorf("ses send email: %w", err)
	}
	return nil
}

func (a *AWS) sms(ctx context.Context, m Message) error {
	attrs := map[string]snstypes.MessageAttributeValue{
		// Codes and notifications are transactional: SNS sends them on
		// the route that favours delivery.
		"AWS.SNS.SMS.SMSType": {DataType: aws.String("String"), StringValue: aws.String("Transactional")},
	}
	if a.senderID != "" {
		attrs["AWS.SNS.SMS.SenderID"] = snstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(a.senderID)}
	}
	_, err := a.sns.Publish(ctx, &sns.PublishInput{PhoneNumber: aws.String(m.To), Message: aws.String(m.Body), MessageAttributes: attrs})
	if err != nil {
		return fmt.Errorf("sns publish: %w", err)
	}
	return nil
}
