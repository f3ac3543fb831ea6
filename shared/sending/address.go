package sending

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// addressKey is an address's key in its budget: a hash of the address
// lower-cased, so that the table holds no address in clear.
func addressKey(address string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(address))))
	return hex.EncodeToString(sum[:16])
}
