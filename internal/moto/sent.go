package moto

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// Email is one email moto's SES accepted.
type Email struct {
	Source       string `json:"source"`
	Subject      string `json:"subject"`
	Body         string `json:"body"`
	Destinations struct {
		To []string `json:"ToAddresses"`
	} `json:"destinations"`
}

// SMS is one text message moto's SNS accepted for a phone number.
type SMS struct {
	PhoneNumber string `json:"phone_number"`
	Message     string `json:"message"`
}

// Sent reads back every email and SMS the moto at url has accepted, in
// the order sent, from its model dump (/moto-api/data.json): moto keeps
// what SES and SNS "sent".
func Sent(ctx context.Context, url string) ([]Email, []SMS, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/moto-api/data.json", nil)
	if err != nil {
		return nil, nil, fmt.Errorf("moto: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("moto: read sent messages: %w", err)
	}
	defer resp.Body.Close()
	var data struct {
		SES struct {
			Message []Email `json:"Message"`
		} `json:"ses"`
		SNS struct {
			SMS []SMS `json:"SMS"`
		} `json:"sns"`
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("moto: read sent messages: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&data); err != nil {
		return nil, nil, fmt.Errorf("moto: read sent messages: %w", err)
	}
	return data.SES.Message, data.SNS.SMS, nil
}
