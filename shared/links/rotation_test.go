package links_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"surveyservice/shared/links"
	"surveyservice/shared/store"
)

func getItem(t *testing.T, st *store.Store, pk, sk string) map[string]ddbtypes.AttributeValue {
	t.Helper()
	out, err := st.Client().GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(st.TableName()),
		Key:            map[string]ddbtypes.AttributeValue{"PK": &ddbtypes.AttributeValueMemberS{Value: pk}, "SK": &ddbtypes.AttributeValueMemberS{Value: sk}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatalf("GetItem %s/%s: %v", pk, sk, err)
	}
	return out.Item
}

func attrS(item map[string]ddbtypes.AttributeValue, name string) string {
	if v, ok := item[name].(*ddbtypes.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func currentKeyID(t *testing.T, st *store.Store) string {
	t.Helper()
	return attrS(getItem(t, st, "DATAKEY", "CURRENT"), "key_id")
}

func TestRotation(t *testing.T) {
	c := newContainer(t)
	ctx, calls := counted()
	old := seal(t, ctx, c.sealer, survey, threeVars(0), threeVars(1))
	kid1 := keyIDOf(t, old[0])
	if cur := currentKeyID(t, c.st); cur != kid1 {
		t.Fatalf("current key %q, the sealer used %s", cur, kid1)
	}

	// 23 hours later the key is still current.
	c.sealer.Now = func() time.Time { return time.Now().Add(23 * time.Hour) }
	calls.Reset()
	if tok := seal(t, ctx, c.sealer, survey, threeVars(2))[0]; keyIDOf(t, tok) != kid1 {
		t.Errorf("23 hours on, the sealer moved to key %s", keyIDOf(t, tok))
	}
	wantCalls(t, "seal 23 hours on", calls, 0, 0)

	// 25 hours later the next seal makes a new key, and only one.
	c.sealer.Now = func() time.Time { return time.Now().Add(25 * time.Hour) }
	calls.Reset()
	fresh := seal(t, ctx, c.sealer, survey, threeVars(3))
	t.Logf("rotating seal: %v", calls.Ops())
	wantCalls(t, "seal 25 hours on", calls, 1, -1)
	if ops := calls.Ops(); ops["KMS.GenerateDataKey"] != 1 {
		t.Errorf("seal 25 hours on: ops %v, want one KMS.GenerateDataKey", ops)
	}
	kid2 := keyIDOf(t, fresh[0])
	if kid2 == kid1 {
		t.Fatalf("25 hours on, the sealer still seals under key %s", kid1)
	}
	if cur := currentKeyID(t, c.st); cur != kid2 {
		t.Errorf("after rotation the current key is %q, want %s", cur, kid2)
	}
	calls.Reset()
	if tok := seal(t, ctx, c.sealer, survey, threeVars(4))[0]; keyIDOf(t, tok) != kid2 {
		t.Errorf("after rotation the sealer sealed under %s, want %s", keyIDOf(t, tok), kid2)
	}
	wantCalls(t, "seal after rotation", calls, 0, 0)

	// Old links keep opening, in this container (no call) and in a new one
	// (one Decrypt per key).
	calls.Reset()
	for i, tok := range old {
		if p, err := c.sealer.Open(ctx, survey, tok); err != nil || !samePayload(p, threeVars(i)) {
			t.Errorf("old token %d after rotation: Open = %+v, %v", i, p, err)
		}
	}
	wantCalls(t, "opening old tokens in the rotating container", calls, 0, 0)

	later := newContainer(t)
	later.sealer.Now = c.sealer.Now
	calls.Reset()
	if tok := seal(t, ctx, later.sealer, survey, threeVars(5))[0]; keyIDOf(t, tok) != kid2 {
		t.Errorf("a new container seals under %s, want the current %s", keyIDOf(t, tok), kid2)
	}
	wantCalls(t, "a new container sealing after rotation", calls, 1, 1)
	calls.Reset()
	for i, tok := range old {
		if p, err := later.sealer.Open(ctx, survey, tok); err != nil || !samePayload(p, threeVars(i)) {
			t.Errorf("old token %d in a new container: Open = %+v, %v", i, p, err)
		}
	}
	wantCalls(t, "a new container opening two tokens of the old key", calls, 1, 1)

	// Another day on, the next rotation replaces the second key.
	later.sealer.Now = func() time.Time { return time.Now().Add(50 * time.Hour) }
	calls.Reset()
	third := seal(t, ctx, later.sealer, survey, threeVars(6))
	kid3 := keyIDOf(t, third[0])
	if kid3 == kid1 || kid3 == kid2 {
		t.Errorf("50 hours on, the sealer seals under an old key %s", kid3)
	}
	wantCalls(t, "second rotation", calls, 1, -1)
	if cur := currentKeyID(t, c.st); cur != kid3 {
		t.Errorf("after the second rotation the current key is %q, want %s", cur, kid3)
	}
	for _, tok := range append(append(old, fresh...), third...) {
		if _, err := later.sealer.Open(ctx, survey, tok); err != nil {
			t.Errorf("after two rotations, a token of key %s: %v", keyIDOf(t, tok), err)
		}
	}
}

// The table keeps the data keys only as KMS wrapped them.
func TestTableNeverHoldsPlaintextKey(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	tok := seal(t, ctx, c.sealer, survey, threeVars(0))[0]
	c.sealer.Now = func() time.Time { return time.Now().Add(25 * time.Hour) }
	tok2 := seal(t, ctx, c.sealer, survey, threeVars(1))[0]

	// The test unwraps the keys itself (the emulator's key allows it) to
	// look for their plaintext in the table.
	var plaintexts [][]byte
	for _, tk := range []string{tok, tok2} {
		kid := keyIDOf(t, tk)
		item := getItem(t, c.st, "DATAKEY#"+kid, "DATAKEY")
		if item == nil {
			t.Fatalf("no item DATAKEY#%s", kid)
		}
		var names []string
		for n := range item {
			names = append(names, n)
		}
		// put_token is the random token of the write that stored it (so that
		// a retried write knows its own item), unrelated to the key.
		if len(item) != 6 || item["PK"] == nil || item["SK"] == nil || item["key_id"] == nil || item["wrapped"] == nil || item["created"] == nil || item["put_token"] == nil {
			t.Errorf("DATAKEY#%s has attributes %v, want exactly PK, SK, key_id, wrapped, created, put_token", kid, names)
		}
		if got := attrS(item, "key_id"); got != kid {
			t.Errorf("DATAKEY#%s: key_id %q", kid, got)
		}
		if _, err := time.Parse(time.RFC3339Nano, attrS(item, "created")); err != nil {
			t.Errorf("DATAKEY#%s: created %q: %v", kid, attrS(item, "created"), err)
		}
		w, ok := item["wrapped"].(*ddbtypes.AttributeValueMemberB)
		if !ok {
			t.Fatalf("DATAKEY#%s: wrapped is %T, want binary", kid, item["wrapped"])
		}
		if len(w.Value) <= 32 {
			t.Errorf("DATAKEY#%s: wrapped is %d bytes, a bare AES-256 key would be 32", kid, len(w.Value))
		}
		out, err := c.kms.Decrypt(ctx, &kms.DecryptInput{CiphertextBlob: w.Value, EncryptionContext: links.EncryptionContext})
		if err != nil {
			t.Fatalf("KMS Decrypt of DATAKEY#%s: %v", kid, err)
		}
		if len(out.Plaintext) != 32 {
			t.Errorf("DATAKEY#%s unwraps to %d bytes, want an AES-256 key", kid, len(out.Plaintext))
		}
		plaintexts = append(plaintexts, out.Plaintext)
		if _, err := c.kms.Decrypt(ctx, &kms.DecryptInput{CiphertextBlob: w.Value}); err == nil {
			t.Logf("note: the emulator unwraps DATAKEY#%s without the encryption context (AWS KMS would not)", kid)
		}

		// The documented format, checked with the bare key: version 1,
		// key id, 12-byte nonce, AES-256-GCM with the header and the
		// survey id as associated data.
		raw := rawToken(t, tk)
		block, err := aes.NewCipher(out.Plaintext)
		if err != nil {
			t.Fatal(err)
		}
		gcm, err := cipher.NewGCM(block)
		if err != nil {
			t.Fatal(err)
		}
		ad := binary.BigEndian.AppendUint64(append(bytes.Clone(raw[:5]), "survey-links/v1/survey:"...), survey)
		plain, err := gcm.Open(nil, raw[5:17], raw[17:], ad)
		if err != nil {
			t.Errorf("the token does not open with its data key as documented: %v", err)
		} else if p, err := links.DecodePayload(plain); err != nil || len(p.Values) != 3 {
			t.Errorf("the token's plaintext decodes to %+v, %v", p, err)
		}
	}
	cur := getItem(t, c.st, "DATAKEY", "CURRENT")
	if len(cur) != 5 || cur["wrapped"] == nil || cur["key_id"] == nil || cur["created"] == nil {
		t.Errorf("DATAKEY/CURRENT has %d attributes, want PK, SK, key_id, wrapped, created", len(cur))
	}

	// Nothing in the table holds a plaintext key, raw, hex or base64.
	out, err := c.st.Client().Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(c.st.TableName()), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range out.Items {
		for name, v := range item {
			var b []byte
			switch v := v.(type) {
			case *ddbtypes.AttributeValueMemberB:
				b = v.Value
			case *ddbtypes.AttributeValueMemberS:
				b = []byte(v.Value)
			default:
				continue
			}
			for _, pt := range plaintexts {
				for _, form := range [][]byte{pt, []byte(hex.EncodeToString(pt)), []byte(base64.StdEncoding.EncodeToString(pt)), []byte(b64.EncodeToString(pt))} {
					if bytes.Contains(b, form) {
						t.Errorf("item %s/%s attribute %s holds a plaintext data key", attrS(item, "PK"), attrS(item, "SK"), name)
					}
				}
			}
		}
	}
	t.Logf("%d items in the table, wrapped keys checked against %d plaintext keys", len(out.Items), len(plaintexts))
}
