package links_test

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
)

// fiveThousand is the largest request of POST .../variables/hashes/: 5000
// three-variable links.
func fiveThousand() ([]links.Payload, [][]byte) {
	ps := make([]links.Payload, 5000)
	enc := make([][]byte, len(ps))
	for i := range ps {
		ps[i] = threeVars(i)
		enc[i] = ps[i].Encode()
	}
	return ps, enc
}

// Figures of the benchmarks that ran before, in ns per 5000 links, for the
// comparisons the later ones log.
var benchFigures = map[string]float64{}

// timeOps runs op in a b.Loop and returns the time of one op, as ns/op
// reports it.
func timeOps(b *testing.B, op func()) float64 {
	for b.Loop() {
		op()
	}
	return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
}

func reportCalls(b *testing.B, calls *awsenv.Calls, ops int) {
	b.ReportMetric(float64(calls.KMS())/float64(ops), "kms-calls/op")
	b.ReportMetric(float64(calls.DynamoDB())/float64(ops), "dynamodb-calls/op")
}

func BenchmarkSeal5000(b *testing.B) {
	payloads, encoded := fiveThousand()

	b.Run("sealer", func(b *testing.B) {
		c := newContainer(b)
		ctx, calls := counted()
		seal(b, ctx, c.sealer, survey, payloads[:1]...) // warm: the container holds the key
		calls.Reset()
		b.ReportAllocs()
		ops := 0
		benchFigures["sealer"] = timeOps(b, func() {
			if _, err := c.sealer.Seal(ctx, survey, payloads); err != nil {
				b.Fatal(err)
			}
			ops++
		})
		reportCalls(b, calls, ops)
		if calls.KMS() != 0 || calls.DynamoDB() != 0 {
			b.Errorf("a warm sealer made %d KMS and %d DynamoDB calls in %d seals of 5000, want none", calls.KMS(), calls.DynamoDB(), ops)
		}
	})

	b.Run("bare-aes-gcm", func(b *testing.B) {
		key := make([]byte, 32)
		rand.Read(key)
		block, err := aes.NewCipher(key)
		if err != nil {
			b.Fatal(err)
		}
		gcm, err := cipher.NewGCM(block)
		if err != nil {
			b.Fatal(err)
		}
		nonce := make([]byte, 12)
		dst := make([]byte, 0, 256)
		b.ReportAllocs()
		benchFigures["bare"] = timeOps(b, func() {
			for _, p := range encoded {
				rand.Read(nonce)
				dst = gcm.Seal(dst[:0], nonce, p, nil)
			}
		})
		if s, bare := benchFigures["sealer"], benchFigures["bare"]; s > 0 && bare > 0 {
			b.Logf("5000 links: sealer %.2f ms, bare AES-GCM %.2f ms: the sealer takes %.2fx the bare cipher (%.0f ns vs %.0f ns a link)",
				s/1e6, bare/1e6, s/bare, s/5000, bare/5000)
		}
	})
}

// BenchmarkSealCold is a request on a new container: a fresh Sealer on a
// table that has a current key seals 5000 links.
func BenchmarkSealCold(b *testing.B) {
	payloads, _ := fiveThousand()
	c := newContainer(b)
	seal(b, context.Background(), c.sealer, survey, payloads[:1]...) // the table's current key
	ctx, calls := counted()
	ops := 0
	b.ReportAllocs()
	benchFigures["cold"] = timeOps(b, func() {
		s := links.NewSealer(c.kms, testenv.KMSKeyID(b), c.st)
		if _, err := s.Seal(ctx, survey, payloads); err != nil {
			b.Fatal(err)
		}
		ops++
	})
	reportCalls(b, calls, ops)
	if calls.KMS() != ops {
		b.Errorf("%d cold seals made %d KMS calls %v, want one each", ops, calls.KMS(), calls.Ops())
	}
}

// BenchmarkNaiveKMSEncrypt is the design the sealer replaces: every link
// its own kms.Encrypt. Slow on the emulator; run it with -benchtime 1x.
func BenchmarkNaiveKMSEncrypt(b *testing.B) {
	_, encoded := fiveThousand()
	c := newContainer(b)
	keyID := testenv.KMSKeyID(b)
	ctx, calls := counted()
	ops, tokenLen := 0, 0
	naive := timeOps(b, func() {
		for _, p := range encoded {
			out, err := c.kms.Encrypt(ctx, &kms.EncryptInput{
				KeyId: aws.String(keyID), Plaintext: p,
				EncryptionContext: map[string]string{"purpose": "survey-links", "survey": fmt.Sprint(survey)},
			})
			if err != nil {
				b.Fatal(err)
			}
			tokenLen = len(base64.RawURLEncoding.EncodeToString(out.CiphertextBlob))
		}
		ops++
	})
	reportCalls(b, calls, ops)
	if calls.KMS() != 5000*ops {
		b.Errorf("%d naive ops made %d KMS calls, want 5000 each", ops, calls.KMS())
	}
	b.Logf("naive: 5000 kms.Encrypt in %.2f s (%.0f calls/s on the emulator), tokens of %d characters (the emulator's ciphertext format)",
		naive/1e9, 5000/(naive/1e9), tokenLen)
	if warm := benchFigures["sealer"]; warm > 0 {
		b.Logf("naive vs warm sealer: %d vs 0 KMS calls, %.0fx the wall time", 5000, naive/warm)
	}
	if cold := benchFigures["cold"]; cold > 0 {
		b.Logf("naive vs cold sealer: %d vs 1 KMS call, %.0fx the wall time", 5000, naive/cold)
	}
}
