// Package links seals personalised survey links under a KMS data key.
package links

// DefaultKeyAlias names the KMS key when KMS_KEY_ID is unset.
const DefaultKeyAlias = "alias/survey-links"

// KeyFromEnv is the KMS key the links use: KMS_KEY_ID (an id, ARN or
// alias), by default DefaultKeyAlias.
func KeyFromEnv(getenv func(string) string) string {
	if k := getenv("KMS_KEY_ID"); k != "" {
		return k
	}
	return DefaultKeyAlias
}
